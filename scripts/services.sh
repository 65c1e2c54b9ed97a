# Sourced by scripts/test: starts a private redis-server and PostgreSQL on free loopback ports
# and stops them again (by their pid files, never by process name).
#   services_start   → exports REDIS_URL, DATABASE_URL, SPORTZ_SERVICES_DIR
#   services_stop
# shellcheck shell=bash

_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

_pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/pg_ctl" ] && { echo "$d"; return; }
  done
  command -v pg_ctl >/dev/null && dirname "$(command -v pg_ctl)"
}

_as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/bash -c "$*"; else bash -c "$*"; fi
}

services_start() {
  SPORTZ_SERVICES_DIR="$(mktemp -d /tmp/sportz-services.XXXXXX)"
  chmod 755 "$SPORTZ_SERVICES_DIR"
  export SPORTZ_SERVICES_DIR

  local rport; rport="$(_free_port)"
  mkdir -p "$SPORTZ_SERVICES_DIR/redis"
  redis-server --daemonize yes --port "$rport" --bind 127.0.0.1 \
    --dir "$SPORTZ_SERVICES_DIR/redis" --pidfile "$SPORTZ_SERVICES_DIR/redis/redis.pid" \
    --logfile "$SPORTZ_SERVICES_DIR/redis/redis.log" --save '' --appendonly no >/dev/null
  local i
  for i in $(seq 1 50); do
    redis-cli -p "$rport" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  redis-cli -p "$rport" ping >/dev/null || { echo "redis-server did not start" >&2; return 1; }
  export REDIS_URL="redis://127.0.0.1:$rport"

  local pgbin pport pgdata
  pgbin="$(_pg_bin)"
  pport="$(_free_port)"
  pgdata="$SPORTZ_SERVICES_DIR/pg"
  mkdir -p "$pgdata"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$pgdata"
  _as_postgres "'$pgbin/initdb' -D '$pgdata' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" \
    >"$SPORTZ_SERVICES_DIR/initdb.log" 2>&1 \
    || { cat "$SPORTZ_SERVICES_DIR/initdb.log" >&2; return 1; }
  _as_postgres "'$pgbin/pg_ctl' -D '$pgdata' -o \"-p $pport -k '$pgdata' -c listen_addresses=127.0.0.1 -c fsync=off\" -l '$pgdata/log' -w start >/dev/null" \
    || { cat "$pgdata/log" >&2; return 1; }
  export DATABASE_URL="postgres://postgres@127.0.0.1:$pport/postgres"
  export SPORTZ_PG_BIN="$pgbin"
  echo "services: redis at $REDIS_URL, postgres at $DATABASE_URL (dir $SPORTZ_SERVICES_DIR)"
}

services_stop() {
  [ -n "${SPORTZ_SERVICES_DIR:-}" ] && [ -d "$SPORTZ_SERVICES_DIR" ] || return 0
  if [ -f "$SPORTZ_SERVICES_DIR/redis/redis.pid" ]; then
    kill "$(cat "$SPORTZ_SERVICES_DIR/redis/redis.pid")" 2>/dev/null || true
  fi
  if [ -f "$SPORTZ_SERVICES_DIR/pg/postmaster.pid" ]; then
    _as_postgres "'$(_pg_bin)/pg_ctl' -D '$SPORTZ_SERVICES_DIR/pg' -m fast -w stop >/dev/null 2>&1" || true
  fi
  rm -rf "$SPORTZ_SERVICES_DIR"
  unset SPORTZ_SERVICES_DIR
}
