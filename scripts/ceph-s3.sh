#!/usr/bin/env bash
# A one-node Ceph cluster with a RADOS (S3) gateway on 127.0.0.1, for the S3 storage tests.
#   scripts/ceph-s3.sh start        -> prints FLOE_CEPH_DIR=..., FLOE_S3_ENDPOINT=..., keys (KEY=VALUE lines)
#   scripts/ceph-s3.sh stop DIR     -> stops the daemons by pid (gateway, OSD, monitor) and removes DIR
# Everything (config, data in memory, logs, pids, sockets) lives in one temp dir; every wait is
# bounded; ports are free ones picked at start, all on loopback. `start` installs Ceph with
# scripts/install-ceph.sh when its binaries are missing. On failure the last line on stderr says
# why, and the daemon logs are kept in DIR-logs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ACCESS_KEY=${FLOE_S3_ACCESS_KEY:-floetest}
SECRET_KEY=${FLOE_S3_SECRET_KEY:-floetestsecret}
START_TIMEOUT=${FLOE_CEPH_START_TIMEOUT:-90}

log() { echo "ceph-s3: $*" >&2; }
die() { log "$*"; exit 1; }

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# wait_for SECONDS DESCRIPTION COMMAND...: retry COMMAND every 0.3 s until it succeeds or time runs out.
wait_for() {
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  STEP="waiting for the $what (not ready after ${seconds}s)"
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.3
  done
  log "$what ready after ${SECONDS}s"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

stop_pidfile() {
  local pidfile=$1 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
}

stop() {
  local dir=${1:?usage: ceph-s3.sh stop DIR}
  [ -f "$dir/ceph.conf" ] || die "$dir is not a ceph-s3 directory"
  # Gateway first, monitor last; each by its own pid file.
  stop_pidfile "$dir/run/client.rgw.pid"
  for pidfile in "$dir"/run/osd.*.pid; do [ -e "$pidfile" ] && stop_pidfile "$pidfile"; done
  stop_pidfile "$dir/run/mon.a.pid"
  rm -rf "$dir"
  log "stopped and removed $dir"
}

# Called by the ERR trap of start: show the daemon logs' tails, keep the logs, stop what was
# started so no daemon outlives the script, and end with one line saying what failed.
start_failed() {
  local dir=$1 line=$2 command=$3
  log "start failed; tails of the daemon logs follow"
  tail -n 20 "$dir"/log/*.log >&2 2>/dev/null || true
  cp -r "$dir/log" "$dir-logs" 2>/dev/null || true
  stop "$dir" >&2 || true
  [ "$command" = "return 1" ] && command="" || command=": \`$command\`"
  log "FAILED ${STEP:-starting}$command (ceph-s3.sh line $line; daemon logs: $dir-logs)"
}

ensure_installed() {
  local tool missing=""
  for tool in ceph-mon ceph-osd radosgw; do command -v "$tool" >/dev/null || missing="$missing $tool"; done
  if [ -n "$missing" ]; then
    log "not installed:$missing; running scripts/install-ceph.sh"
    bash "$HERE/install-ceph.sh" >&2 || die "installing Ceph failed (scripts/install-ceph.sh: apt-get install ceph-mon ceph-osd radosgw)"
  fi
  for tool in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph ceph-authtool; do
    command -v "$tool" >/dev/null || die "$tool not found after scripts/install-ceph.sh"
  done
}

start() {
  ensure_installed
  local dir; dir=$(mktemp -d "${TMPDIR:-/tmp}/floe-ceph.XXXXXX")
  trap 'start_failed "$dir" "$LINENO" "$BASH_COMMAND"' ERR

  local mon_v2 mon_v1 rgw_port fsid conf="$dir/ceph.conf"
  mon_v2=$(free_port); mon_v1=$(free_port); rgw_port=$(free_port)
  fsid=$(uuidgen)
  mkdir -p "$dir/run" "$dir/log" "$dir/mon" "$dir/osd" "$dir/rgw"
  cat >"$conf" <<CONF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_v2,v1:127.0.0.1:$mon_v1]
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = true
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
run dir = $dir/run
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
mon cluster log file = $dir/log/cluster.log
keyring = $dir/keyring
mon data = $dir/mon/\$name
osd data = $dir/osd/\$name
osd objectstore = memstore
memstore device bytes = 2147483648
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $dir/rgw
ms mon client mode = crc
auth client required = none
CONF
  local t0=$SECONDS
  STEP="creating the monitor"
  ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_v2,v1:127.0.0.1:$mon_v1]" "$dir/monmap" >/dev/null
  ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring"
  ceph-mon -c "$conf" -i a
  wait_for "$START_TIMEOUT" monitor timeout 10 ceph -c "$conf" --connect-timeout 5 mon stat

  STEP="creating the OSD"
  local uuid id; uuid=$(uuidgen)
  id=$(timeout 30 ceph -c "$conf" --connect-timeout 10 osd new "$uuid")
  mkdir -p "$dir/osd/osd.$id"
  ceph-osd -c "$conf" -i "$id" --mkfs --osd-uuid "$uuid" >/dev/null 2>&1
  ceph-osd -c "$conf" -i "$id" 2>>"$dir/log/osd-start.log"
  osd_up() { timeout 10 ceph -c "$conf" --connect-timeout 5 osd stat | grep -q '1 up'; }
  wait_for "$START_TIMEOUT" OSD osd_up

  STEP="starting the gateway"
  radosgw -c "$conf" -n client.rgw
  wait_for "$START_TIMEOUT" "gateway on 127.0.0.1:$rgw_port" port_open "$rgw_port"
  STEP="creating the S3 user"
  timeout 60 radosgw-admin -c "$conf" -n client.rgw --admin-socket "$dir/run/radosgw-admin.asok" user create --uid=floe --display-name=floe \
    --access-key="$ACCESS_KEY" --secret="$SECRET_KEY" >/dev/null
  trap - ERR
  log "started in $((SECONDS - t0))s"
  echo "FLOE_CEPH_DIR=$dir"
  echo "FLOE_S3_ENDPOINT=http://127.0.0.1:$rgw_port"
  echo "FLOE_S3_ACCESS_KEY=$ACCESS_KEY"
  echo "FLOE_S3_SECRET_KEY=$SECRET_KEY"
}

case "${1:-}" in
  start) start ;;
  stop) shift; stop "$@" ;;
  *) die "usage: $0 start | stop DIR" ;;
esac
