#!/usr/bin/env bash
# Starts a production-shaped Temporal cluster on this machine: the Temporal
# server 1.29.1 (all four services in one process) on PostgreSQL, with SQL
# visibility, the repo's dynamic config, and the project's namespace and
# search attributes registered. See README.md next to this file.
#
#   start.sh                 build what is missing, set up the databases, run
#                            the server in the foreground (Ctrl-C stops it)
#   start.sh --background    same, but detached; returns once it is ready
#                            (or TEMPORAL_CLUSTER_BACKGROUND=1); stop.sh stops it
#   start.sh --reset         drop both databases first (server must be stopped)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TEMPORAL_CONFIG_DIR=$(cd "$HERE/.." && pwd)

SERVER_MODULE=go.temporal.io/server
SERVER_VERSION=v1.29.1
UI_MODULE=github.com/temporalio/ui-server/v2
UI_VERSION=v2.42.1 # the Web UI the Temporal CLI v1.5.1 embeds
CLI_PACKAGE=github.com/temporalio/cli/cmd/temporal@v1.5.1 # as dev/temporal/temporal-cli.ts

# Settings. The config template (config/ledger.yaml) reads the exported ones
# and has the same defaults: keep them in sync.
export TEMPORAL_CLUSTER_PORT=${TEMPORAL_CLUSTER_PORT:-7233}
export TEMPORAL_CLUSTER_DB=${TEMPORAL_CLUSTER_DB:-temporal_cluster}
export TEMPORAL_CLUSTER_VISIBILITY_DB=${TEMPORAL_CLUSTER_VISIBILITY_DB:-temporal_cluster_visibility}
export TEMPORAL_CLUSTER_PG_HOST=${TEMPORAL_CLUSTER_PG_HOST:-127.0.0.1}
export TEMPORAL_CLUSTER_PG_PORT=${TEMPORAL_CLUSTER_PG_PORT:-5432}
export TEMPORAL_CLUSTER_PG_USER=${TEMPORAL_CLUSTER_PG_USER:-postgres}
export TEMPORAL_CLUSTER_PG_PASSWORD=${TEMPORAL_CLUSTER_PG_PASSWORD:-}
export TEMPORAL_CLUSTER_LOG_LEVEL=${TEMPORAL_CLUSTER_LOG_LEVEL:-info}
export TEMPORAL_CLUSTER_DYNAMIC_CONFIG=${TEMPORAL_CLUSTER_DYNAMIC_CONFIG:-$TEMPORAL_CONFIG_DIR/dynamic-config.yaml}
export TEMPORAL_CLUSTER_UI_PORT=${TEMPORAL_CLUSTER_UI_PORT:-8234}
export TEMPORAL_CLUSTER_NAMESPACE=${TEMPORAL_CLUSTER_NAMESPACE:-ledger}
UI=${TEMPORAL_CLUSTER_UI:-1}
STATE_DIR=${TEMPORAL_CLUSTER_DIR:-$HOME/.cache/ledger-temporal-cluster}
NAMESPACE=$TEMPORAL_CLUSTER_NAMESPACE
RETENTION=${TEMPORAL_CLUSTER_RETENTION:-72h}
READY_TIMEOUT=${TEMPORAL_CLUSTER_READY_TIMEOUT:-120}
BACKGROUND=${TEMPORAL_CLUSTER_BACKGROUND:-0}
SEARCH_ATTRIBUTES_FILE=$TEMPORAL_CONFIG_DIR/search-attributes.json

RESET=0
for arg in "$@"; do
  case $arg in
    --background) BACKGROUND=1 ;;
    --reset) RESET=1 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "start.sh: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

ADDRESS=127.0.0.1:$TEMPORAL_CLUSTER_PORT
PID_FILE=$STATE_DIR/server.pid
LOG_FILE=$STATE_DIR/server.log
UI_PID_FILE=$STATE_DIR/ui.pid
UI_LOG_FILE=$STATE_DIR/ui.log
mkdir -p "$STATE_DIR"

log() { printf '[temporal-cluster] %s\n' "$*" >&2; }
stop_ui() {
  if [[ -f $UI_PID_FILE ]]; then kill -TERM "$(cat "$UI_PID_FILE")" 2>/dev/null || true; fi
  rm -f "$UI_PID_FILE"
}
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
T0=$(now)

# --- Binaries ---------------------------------------------------------------
command -v go >/dev/null || die "Go is needed (to build the server and to locate its schema files)"
GO_BIN_DIR=$(go env GOPATH | cut -d: -f1)/bin

# go install PACKAGE into DIR (default $GO_BIN_DIR) unless NAME is there and
# `NAME --version` prints the wanted version ("server" and "sql" are generic
# names: a stale or foreign binary of the same name is rebuilt over).
ensure_binary() {
  local name=$1 package=$2 version=$3 dir=${4:-$GO_BIN_DIR} t
  if [[ -x $dir/$name ]] && "$dir/$name" --version 2>/dev/null | grep -q "version ${version#v}"; then
    return
  fi
  log "Building $name: go install $package (minutes on an empty module cache)"
  t=$(now)
  GOBIN=$dir go install "$package"
  log "Built $dir/$name in $(since "$t")"
}
ensure_binary server "$SERVER_MODULE/cmd/server@$SERVER_VERSION" "$SERVER_VERSION"
ensure_binary sql "$SERVER_MODULE/cmd/tools/sql@$SERVER_VERSION" "$SERVER_VERSION"
SERVER=$GO_BIN_DIR/server
SQL=$GO_BIN_DIR/sql
# The UI server's binary is also called "server": it gets its own directory.
UI_BIN_DIR=$GO_BIN_DIR/temporal-ui-$UI_VERSION
if [[ $UI == 1 ]]; then ensure_binary server "$UI_MODULE/cmd/server@$UI_VERSION" "$UI_VERSION" "$UI_BIN_DIR"; fi
UI_SERVER=$UI_BIN_DIR/server

# The CLI, found as the project finds it (TEMPORAL_CLI_PATH, PATH, Go's bin).
if [[ -n ${TEMPORAL_CLI_PATH:-} ]]; then
  TEMPORAL=$TEMPORAL_CLI_PATH
elif command -v temporal >/dev/null; then
  TEMPORAL=$(command -v temporal)
else
  [[ -x $GO_BIN_DIR/temporal ]] || {
    log "Building the Temporal CLI: go install $CLI_PACKAGE"
    GOBIN=$GO_BIN_DIR go install "$CLI_PACKAGE"
  }
  TEMPORAL=$GO_BIN_DIR/temporal
fi

# The versioned schema directories ship in the server module's source, which
# `go install` left in the module cache (downloaded again if it was cleaned).
MODULE_DIR=$(cd / && go mod download -json "$SERVER_MODULE@$SERVER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $MODULE_DIR/schema/postgresql/v12 ]] || die "no PostgreSQL schema in $MODULE_DIR"

# --- Already running? ------------------------------------------------------
# A pid from the pid file counts only if it is still this cluster's server.
running_pid() {
  local pid
  pid=$(cat "$PID_FILE" 2>/dev/null) || return 1
  [[ -n $pid ]] && ps -o args= -p "$pid" 2>/dev/null | grep -q -- "--root $HERE " || return 1
  echo "$pid"
}
PID=$(running_pid) || PID=
if [[ -n $PID && $RESET == 1 ]]; then die "--reset: the server is running (pid $PID); run stop.sh first"; fi

# --- PostgreSQL ---------------------------------------------------------------
pg_up() { pg_isready -q -h "$TEMPORAL_CLUSTER_PG_HOST" -p "$TEMPORAL_CLUSTER_PG_PORT" -U "$TEMPORAL_CLUSTER_PG_USER"; }
if ! pg_up; then
  # Only a local Debian cluster can be started from here.
  [[ $TEMPORAL_CLUSTER_PG_HOST == 127.0.0.1 || $TEMPORAL_CLUSTER_PG_HOST == localhost ]] && command -v pg_ctlcluster >/dev/null ||
    die "PostgreSQL is not answering on $TEMPORAL_CLUSTER_PG_HOST:$TEMPORAL_CLUSTER_PG_PORT"
  PG_VERSION=$(ls /etc/postgresql | sort -V | tail -n 1)
  log "Starting PostgreSQL $PG_VERSION (pg_ctlcluster)"
  pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main start
  for _ in $(seq 30); do pg_up && break; sleep 1; done
  pg_up || die "PostgreSQL did not come up"
fi

# --- Databases and schemas ------------------------------------------------------
export SQL_PASSWORD=$TEMPORAL_CLUSTER_PG_PASSWORD # the sql tool reads it; keeps it off the command line
SCHEMA_LOG=$STATE_DIR/schema.log
sql_tool() {
  "$SQL" --plugin postgres12 --ep "$TEMPORAL_CLUSTER_PG_HOST" -p "$TEMPORAL_CLUSTER_PG_PORT" \
    -u "$TEMPORAL_CLUSTER_PG_USER" "$@" >>"$SCHEMA_LOG" 2>&1
}
: >"$SCHEMA_LOG"

if [[ $RESET == 1 ]]; then
  for db in "$TEMPORAL_CLUSTER_DB" "$TEMPORAL_CLUSTER_VISIBILITY_DB"; do
    log "Dropping database $db"
    sql_tool --db "$db" drop-database --force || die "drop-database $db failed, see $SCHEMA_LOG"
  done
fi

# All three are safe to repeat (checked in the 1.29.1 source and by running
# twice): create-database ignores PostgreSQL's duplicate-database error;
# setup-schema -v 0.0 only creates the schema_version tables (IF NOT EXISTS)
# and leaves a higher recorded version alone; update-schema applies only the
# versions above the recorded one.
setup_database() {
  local db=$1 dir=$2
  sql_tool --db "$db" create-database || die "create-database $db failed, see $SCHEMA_LOG"
  sql_tool --db "$db" setup-schema -v 0.0 || die "setup-schema $db failed, see $SCHEMA_LOG"
  sql_tool --db "$db" update-schema -d "$dir" || die "update-schema $db failed, see $SCHEMA_LOG"
}
T_SCHEMA=$(now)
setup_database "$TEMPORAL_CLUSTER_DB" "$MODULE_DIR/schema/postgresql/v12/temporal/versioned"
setup_database "$TEMPORAL_CLUSTER_VISIBILITY_DB" "$MODULE_DIR/schema/postgresql/v12/visibility/versioned"
log "Schemas of $TEMPORAL_CLUSTER_DB and $TEMPORAL_CLUSTER_VISIBILITY_DB up to date ($(since "$T_SCHEMA"))"

# --- Dynamic config -------------------------------------------------------------
# The server only logs unknown keys or badly typed values (and then ignores
# them); its validator prints them as "warning:" lines but exits 0.
DC_CHECK=$("$SERVER" validate-dynamic-config "$TEMPORAL_CLUSTER_DYNAMIC_CONFIG" 2>&1) || die "$DC_CHECK"
if grep -q 'warning:' <<<"$DC_CHECK"; then die "dynamic config refused by server $SERVER_VERSION:"$'\n'"$DC_CHECK"; fi

# --- Server ---------------------------------------------------------------------
SERVER_CMD=("$SERVER" --root "$HERE" --config config --env ledger --allow-no-auth start)
T_START=$(now)
ALREADY_RUNNING=0
if [[ -n $PID ]]; then
  log "Already running (pid $PID); checking the registration only"
  ALREADY_RUNNING=1 BACKGROUND=1 # nothing of ours to wait for
else
  # Same offsets as config/ledger.yaml. Refuse to start on a taken port rather
  # than let one service of four fail to bind.
  P=$TEMPORAL_CLUSTER_PORT M=$((TEMPORAL_CLUSTER_PORT - 300))
  UI_PORTS=()
  [[ $UI == 1 ]] && UI_PORTS=("$TEMPORAL_CLUSTER_UI_PORT")
  for port in $P $((P + 1)) $((P + 2)) $((P + 6)) $((P + 10)) $((P + 11)) $M $((M + 1)) $((M + 2)) $((M + 6)) "${UI_PORTS[@]}"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port is in use (TEMPORAL_CLUSTER_PORT picks another range)"; fi
  done
  if [[ $BACKGROUND == 1 ]]; then
    # Own session: a Ctrl-C in this terminal later does not reach it.
    log "Starting the server in the background, log $LOG_FILE"
    setsid "${SERVER_CMD[@]}" >>"$LOG_FILE" 2>&1 </dev/null &
    PID=$!
  else
    log "Starting the server in the foreground"
    "${SERVER_CMD[@]}" &
    PID=$!
    # Forward Ctrl-C/TERM, and never leave the server behind if this script fails.
    trap 'kill -TERM $PID 2>/dev/null || true' INT TERM
    trap 'kill -TERM $PID 2>/dev/null || true; rm -f "$PID_FILE"; stop_ui' EXIT
  fi
  echo "$PID" >"$PID_FILE"
fi

# Fails the script if the server process has gone.
alive() {
  kill -0 "$PID" 2>/dev/null && return
  if [[ $BACKGROUND == 1 ]]; then
    tail -n 20 "$LOG_FILE" >&2
    die "the server exited, see $LOG_FILE"
  fi
  die "the server exited, see its output above"
}
deadline=$(($(date +%s) + READY_TIMEOUT))
wait_for() { # DESCRIPTION COMMAND...: retry COMMAND every 0.5 s until it succeeds
  local what=$1 out
  shift
  until out=$("$@" 2>&1); do
    alive
    (($(date +%s) < deadline)) || die "timed out after ${READY_TIMEOUT}s waiting for $what: $out"
    sleep 0.5
  done
}
cli() { "$TEMPORAL" --address "$ADDRESS" --command-timeout 10s "$@"; }

wait_for "the frontend" cli operator cluster health
log "Frontend serving at $ADDRESS ($(since "$T_START") after start)"

# --- Namespace and search attributes ---------------------------------------------
create_namespace() {
  cli operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1 && return
  local out
  out=$(cli operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION" \
    --description "Ledger Asset Service writes" 2>&1) || grep -qi 'already' <<<"$out" || { echo "$out"; return 1; }
}
wait_for "namespace $NAMESPACE" create_namespace

# search-attributes.json is a flat {"Name": "Type"} object. One --type per
# --name: CLI v1.5.1 pairs them by position and ignores names without a type.
# Existing attributes of the same type are skipped by server and CLI alike.
mapfile -t SA_NAMES < <(grep -oE '"[A-Za-z0-9_]+"[[:space:]]*:' "$SEARCH_ATTRIBUTES_FILE" | grep -oE '[A-Za-z0-9_]+')
mapfile -t SA_TYPES < <(grep -oE ':[[:space:]]*"[A-Za-z]+"' "$SEARCH_ATTRIBUTES_FILE" | grep -oE '[A-Za-z]+')
((${#SA_NAMES[@]} > 0 && ${#SA_NAMES[@]} == ${#SA_TYPES[@]})) || die "cannot read $SEARCH_ATTRIBUTES_FILE"
SA_ARGS=()
for i in "${!SA_NAMES[@]}"; do SA_ARGS+=(--name "${SA_NAMES[$i]}" --type "${SA_TYPES[$i]}"); done
# Retried: right after the namespace is created the frontend may not know it yet.
wait_for "search attributes" cli operator search-attribute create --namespace "$NAMESPACE" "${SA_ARGS[@]}"

# Registered means listed (by name and type) for the namespace.
all_listed() {
  local list i
  list=$(cli operator search-attribute list --namespace "$NAMESPACE") || return 1
  for i in "${!SA_NAMES[@]}"; do
    grep -qiE "^[[:space:]]*${SA_NAMES[$i]}[[:space:]]+${SA_TYPES[$i]}[[:space:]]*$" <<<"$list" || {
      echo "${SA_NAMES[$i]} not listed yet"
      return 1
    }
  done
}
wait_for "search attributes to be listed" all_listed

# --- Web UI ----------------------------------------------------------------------
# The UI server reads ui-config/ledger.yaml (a template over the same variables)
# and answers its API once it reaches the frontend.
UI_URL=http://127.0.0.1:$TEMPORAL_CLUSTER_UI_PORT
ui_answers() { curl -fsS -o /dev/null "$UI_URL/api/v1/namespaces/$NAMESPACE"; }
if [[ $UI == 1 ]]; then
  UI_PID=$(cat "$UI_PID_FILE" 2>/dev/null) || UI_PID=
  if [[ -z $UI_PID ]] || ! ps -o args= -p "$UI_PID" 2>/dev/null | grep -q -- "--root $HERE --config ui-config"; then
    setsid "$UI_SERVER" --root "$HERE" --config ui-config --env ledger start >>"$UI_LOG_FILE" 2>&1 </dev/null &
    echo $! >"$UI_PID_FILE"
  fi
  wait_for "the Web UI at $UI_URL (log $UI_LOG_FILE)" ui_answers
  log "Web UI at $UI_URL (namespace $NAMESPACE)"
fi

log "Ready $(since "$T_START") after start ($(since "$T0") in all)"
READY="Temporal cluster ready at $ADDRESS (namespace $NAMESPACE)"
[[ $UI == 1 ]] && READY+=", Web UI $UI_URL"
echo "$READY"

if [[ $BACKGROUND == 1 ]]; then
  ((ALREADY_RUNNING)) || log "Running in the background (pid $PID); stop it with $HERE/stop.sh"
  exit 0
fi
# Foreground: stay with the server until it exits (Ctrl-C forwards TERM).
set +e
wait "$PID"
status=$?
# A trapped signal interrupts the first wait; wait again for the shutdown.
kill -0 "$PID" 2>/dev/null && { wait "$PID"; status=$?; }
rm -f "$PID_FILE"
trap - EXIT
exit "$status"
