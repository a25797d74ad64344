#!/usr/bin/env bash
# Stops the cluster server started by `start.sh --background`: SIGTERM, then
# SIGKILL if it has not exited after TEMPORAL_CLUSTER_STOP_TIMEOUT seconds
# (default 30). The databases are left as they are (start.sh --reset drops them).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STATE_DIR=${TEMPORAL_CLUSTER_DIR:-$HOME/.cache/ledger-temporal-cluster}
PID_FILE=$STATE_DIR/server.pid
UI_PID_FILE=$STATE_DIR/ui.pid
TIMEOUT=${TEMPORAL_CLUSTER_STOP_TIMEOUT:-30}

log() { printf '[temporal-cluster] %s\n' "$*" >&2; }

# The Web UI first (it only reads the frontend), if it is still the one start.sh started.
UI_PID=$(cat "$UI_PID_FILE" 2>/dev/null) || UI_PID=
if [[ -n $UI_PID ]] && ps -o args= -p "$UI_PID" 2>/dev/null | grep -q -- "--root $HERE --config ui-config"; then
  kill -TERM "$UI_PID"
  for _ in $(seq 50); do kill -0 "$UI_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$UI_PID" 2>/dev/null || true
  log "Stopped the Web UI (pid $UI_PID)"
fi
rm -f "$UI_PID_FILE"

PID=$(cat "$PID_FILE" 2>/dev/null) || PID=
# Only signal the pid if it is still this cluster's server (pids get reused).
if [[ -z $PID ]] || ! ps -o args= -p "$PID" 2>/dev/null | grep -q -- "--root $HERE "; then
  log "Not running"
  rm -f "$PID_FILE"
  exit 0
fi

T0=$(date +%s.%N)
log "Stopping the server (pid $PID)"
kill -TERM "$PID"
# The server drains and stops its four services; a few seconds normally.
for _ in $(seq $((TIMEOUT * 10))); do
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$PID" 2>/dev/null; then
  log "Still running after ${TIMEOUT}s: SIGKILL"
  kill -KILL "$PID"
  while kill -0 "$PID" 2>/dev/null; do sleep 0.1; done
fi
rm -f "$PID_FILE"
log "Stopped in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }')"
