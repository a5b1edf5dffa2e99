#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# The fleet efficiency benchmark on MariaDB (README.md, "Fleet efficiency
# benchmark"): a private MariaDB (scripts/lib/mariadb.sh) over a temp dir,
# its buffer pool grown to 1 GiB (BUFFER_POOL_MB) and its redo log to
# 512 MiB for the fill; efficiency_bench --fill-only; then the server
# restarted with an empty buffer pool (no dump kept, none loaded; InnoDB
# reads its files past the page cache, O_DIRECT), so that the first query
# of efficiency_bench --query-only reads the archive from disk.
#
# Usage: efficiency_bench_mariadb.sh BUILD-DIR [--jobs N]
# Prints the figures; exits 77 with "SKIPPED: <why>" when MariaDB is missing.
# KEEP=1 keeps the temp dir.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/mariadb.sh
source "$here/../../scripts/lib/mariadb.sh"

build=${1:?usage: efficiency_bench_mariadb.sh BUILD-DIR [--jobs N]}
shift
bench=$build/test/bench/efficiency_bench
[ -x "$bench" ] || { echo "no $bench: build it first (meson compile -C $build)" >&2; exit 2; }
why=$(mariadb_unavailable)
[ -z "$why" ] || { echo "SKIPPED: $why"; exit 77; }

T=$(mktemp -d /tmp/petricore-efficiency-mariadb.XXXXXX)
cleanup() {
  mariadb_stop
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

pool=$((${BUFFER_POOL_MB:-1024} * 1024 * 1024))
grow() {
  mariadb_root -e "SET GLOBAL innodb_buffer_pool_size = $pool; SET GLOBAL innodb_log_file_size = 536870912" ||
    return 1
  # The pool grows in the background: wait for it.
  for _ in $(seq 100); do
    [ "$(mariadb_root -N -e 'SELECT @@innodb_buffer_pool_size')" = "$pool" ] && return 0
    sleep 0.1
  done
}

mariadb_start "$T/mariadb" || exit 1
grow || exit 1
echo "MariaDB $(mariadb_root -N -e 'SELECT VERSION()'): buffer pool $((pool >> 20)) MiB"
"$bench" --mariadb "$MDB_SOCKET" --fill-only "$@" || exit 1

# Cold: every dirty page written (a shutdown within stop's 10 s), no pool
# dump at shutdown, none loaded at start.
mariadb_root -e "SET GLOBAL innodb_buffer_pool_dump_at_shutdown = OFF; SET GLOBAL innodb_io_capacity_max = 20000;
  SET GLOBAL innodb_io_capacity = 10000; SET GLOBAL innodb_max_dirty_pages_pct = 0"
for _ in $(seq 600); do
  dirty=$(mariadb_root -N -e "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'" | cut -f2)
  [ "${dirty:-0}" -lt 100 ] && break
  sleep 0.5
done
mariadb_stop
rm -f "$T/mariadb/data/ib_buffer_pool"
mariadb_start "$T/mariadb" || exit 1
grow || exit 1
"$bench" --mariadb "$MDB_SOCKET" --query-only "$@"
