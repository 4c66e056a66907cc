#!/usr/bin/env bash
# Installs the Python peers of the Zarr v2 cross-tests: Debian's python3-zarr (zarr-python 2.13)
# and python3-numcodecs (0.11) with python3-msgpack (numcodecs' msgpack2 codec, only recommended), for /usr/bin/python3 (test/support/python-zarr.ts runs that
# interpreter, never a pyenv `python3` earlier on PATH). Idempotent and quiet: does nothing when
# /usr/bin/python3 already imports both.
set -euo pipefail

if /usr/bin/python3 -c 'import zarr, numcodecs, msgpack' >/dev/null 2>&1; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends python3-zarr python3-numcodecs python3-msgpack >/dev/null
echo "install-python-peers: $(/usr/bin/python3 -c 'import zarr, numcodecs; print("zarr", zarr.__version__, "numcodecs", numcodecs.__version__)')"
