#!/usr/bin/env bash
# db.sh — start (or reuse) the private PostgreSQL 15 + pgvector cluster for this checkout.
#
# Prints exactly one line on stdout: DATABASE_URL=...
# Progress goes to stderr. Idempotent: a second call takes well under a second.
#
#   scripts/db.sh start   start or reuse the cluster, create the database (default)
#   scripts/db.sh stop    stop the cluster
#   scripts/db.sh clean   stop it and delete its data directory
#
# An existing DATABASE_URL is honoured untouched: nothing is installed or started.
set -euo pipefail

cmd="${1:-start}"
here="$(cd "$(dirname "$0")/.." && pwd)"
PGBIN="${PGBIN:-/usr/lib/postgresql/15/bin}"
key="$(printf '%s' "$here" | sha1sum | cut -c1-10)"
BASE="${BOOLPOOL_PGDIR:-/var/tmp/boolpool-pg-$key}"
PGDATA="$BASE/data"
SOCK="$BASE/sock"
# A port per checkout, so two clones never fight over one cluster.
PORT="${BOOLPOOL_PGPORT:-$((54000 + 0x${key:0:4} % 900))}"
DBNAME="${BOOLPOOL_DBNAME:-boolpool}"
URL="postgres://postgres@127.0.0.1:$PORT/$DBNAME?sslmode=disable"

log() { printf 'db: %s\n' "$*" >&2; }

if [ "$cmd" = start ] && [ -n "${DATABASE_URL:-}" ]; then
  log "using the existing DATABASE_URL (nothing started)"
  echo "DATABASE_URL=$DATABASE_URL"
  exit 0
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

apt_updated=""
apt_install() {
  [ -n "$apt_updated" ] || { log "apt-get update"; apt-get update -qq >&2; apt_updated=1; }
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

ensure_postgres() {
  [ -x "$PGBIN/postgres" ] && return
  [ "$(id -u)" = 0 ] || { log "PostgreSQL 15 is missing and I am not root: install postgresql-15"; exit 1; }
  apt_install postgresql-15
}

ensure_pgvector() {
  local sharedir
  sharedir="$("$PGBIN/pg_config" --sharedir 2>/dev/null || echo /usr/share/postgresql/15)"
  [ -f "$sharedir/extension/vector.control" ] && return
  [ "$(id -u)" = 0 ] || { log "pgvector is missing and building it needs root"; exit 1; }
  log "pgvector missing: building it from Debian's source package (trixie)"
  local ver
  ver="$(dpkg-query -W -f='${Version}' postgresql-15)"
  apt_install "postgresql-server-dev-15=$ver" build-essential dpkg-dev ca-certificates
  local work; work="$(mktemp -d /var/tmp/boolpool-pgvector.XXXXXX)"
  mkdir -p "$work/lists/partial"
  echo "deb-src http://deb.debian.org/debian trixie main" > "$work/sources.list"
  local opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-" -o "Dir::State::Lists=$work/lists")
  apt-get "${opts[@]}" update -qq >&2
  (cd "$work" && apt-get "${opts[@]}" source -qq --download-only pgvector >&2 \
     && dpkg-source -x --no-check ./pgvector_*.dsc src >&2)
  make -C "$work/src" PG_CONFIG="$PGBIN/pg_config" -j2 >&2
  make -C "$work/src" PG_CONFIG="$PGBIN/pg_config" install >&2
  rm -rf "$work"
  log "pgvector installed"
}

pg_running() { [ -f "$PGDATA/postmaster.pid" ] && as_owner "$PGBIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; }

case "$cmd" in
  stop)
    if pg_running; then as_owner "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >&2; else log "not running"; fi
    exit 0 ;;
  clean)
    if pg_running; then as_owner "$PGBIN/pg_ctl" -D "$PGDATA" -m fast -w stop >&2; fi
    rm -rf "$BASE"; log "removed $BASE"; exit 0 ;;
  url)
    echo "DATABASE_URL=$URL"; exit 0 ;;
  start) ;;
  *) log "unknown command $cmd (start|stop|clean|url)"; exit 2 ;;
esac

ensure_postgres
ensure_pgvector

if [ ! -f "$PGDATA/PG_VERSION" ]; then
  log "initdb $PGDATA"
  mkdir -p "$PGDATA" "$SOCK"
  chmod 755 "$BASE"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$BASE"
  as_owner "$PGBIN/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  cat >> "$PGDATA/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$SOCK'
max_connections = 300
shared_buffers = 512MB
# bulk loads (imports, vectors, HNSW builds) checkpoint less often
max_wal_size = 4GB
checkpoint_timeout = 15min
fsync = on
synchronous_commit = on
CONF
fi

# One HNSW build may use up to half of this machine's memory (and 80 % of
# /dev/shm, where a parallel build keeps its graph) instead of the 4 GB the
# store assumes of a database it knows nothing about (docs/scaling.md).
mem_mb=$(awk '/^MemTotal:/ {print int($2/1024)}' /proc/meminfo)
shm_mb=$(df -Pm /dev/shm 2>/dev/null | awk 'NR==2 {print $2}')
hnsw_mb=$(( mem_mb / 2 ))
if [ -n "$shm_mb" ] && [ $(( shm_mb * 4 / 5 )) -lt "$hnsw_mb" ]; then hnsw_mb=$(( shm_mb * 4 / 5 )); fi
if [ "$hnsw_mb" -lt 4096 ]; then hnsw_mb=4096; fi
if ! grep -q "^boolpool.hnsw_build_memory_mb = $hnsw_mb\$" "$PGDATA/postgresql.conf"; then
  sed -i '/^boolpool.hnsw_build_memory_mb/d' "$PGDATA/postgresql.conf"
  echo "boolpool.hnsw_build_memory_mb = $hnsw_mb" >> "$PGDATA/postgresql.conf"
  if pg_running; then as_owner "$PGBIN/pg_ctl" -D "$PGDATA" reload >/dev/null; fi
fi

if ! pg_running; then
  log "starting PostgreSQL on 127.0.0.1:$PORT"
  as_owner "$PGBIN/pg_ctl" -D "$PGDATA" -l "$BASE/postgres.log" -w -t 60 start >/dev/null
fi

if ! "$PGBIN/psql" -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -Atqc "select 1 from pg_database where datname='$DBNAME'" | grep -q 1; then
  "$PGBIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres "$DBNAME"
fi
echo "DATABASE_URL=$URL"
