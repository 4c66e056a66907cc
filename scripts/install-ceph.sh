#!/usr/bin/env bash
# Installs the Debian packages for a one-node Ceph RADOS gateway (the real S3-compatible server the
# S3 storage tests run against). Idempotent: does nothing when the binaries are already there.
set -euo pipefail

if command -v ceph-mon >/dev/null && command -v ceph-osd >/dev/null && command -v radosgw >/dev/null; then
  echo "install-ceph: ceph-mon, ceph-osd and radosgw already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends ceph-mon ceph-osd radosgw
echo "install-ceph: installed $(ceph-mon --version 2>/dev/null | head -n1)"
