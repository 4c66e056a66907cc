#!/usr/bin/env bash
# Installs the servers and the browser the tests start themselves, on loopback, from Debian 12:
# nginx (a static host for the HTTP storage tests, issue 30), redis-server (BullMQ's store for the
# distributed writes, issue 32) and chromium (the browser tests, issues 31 and 34; it comes from
# Debian's security updates, so its version moves: the tests print it). Nothing is started here:
# the packages' own services are not used (each test starts its own process and stops it by pid).
# Idempotent and quiet: does nothing when all three are there.
set -euo pipefail

if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  if command -v redis-server >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1; then
    exit 0
  fi
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends nginx-light redis-server chromium >/dev/null
echo "install-services: $(dpkg-query -W -f '${Package} ${Version}, ' nginx-light redis-server chromium)"
