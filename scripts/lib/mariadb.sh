# shellcheck shell=bash
# A real MariaDB (Debian's mariadb-server) for integration tests, as a plain
# process on 127.0.0.1 and a Unix socket, over a datadir the test owns,
# stopped by PID. (Facts behind the flags: ../shared/reference/realstack/README.md §1.)
#
#   source "$(dirname "$0")/../../scripts/lib/mariadb.sh"
#   why=$(mariadb_unavailable) && [ -z "$why" ] || skip "$why"
#   mariadb_start "$T/mariadb" || bail "..."   # sets MDB_PID, MDB_PORT, MDB_SOCKET
#   mariadb_root -e 'SELECT 1'                 # the client as root over the socket
#   mariadb_stop                               # also safe in an EXIT trap
#
# Functions:
#   mariadb_unavailable   prints why MariaDB cannot be used here (mariadbd,
#                         mariadb-install-db or the mariadb client missing);
#                         prints nothing when it can.
#   mariadb_start DIR [PORT]
#                         creates DIR/data with mariadb-install-db (root logs
#                         in over the socket: unix_socket when run as root,
#                         no password otherwise), starts mariadbd on PORT (a
#                         free one when not given) and DIR/mysqld.sock, waits
#                         up to MDB_READY_SECONDS (30) for a ping. Sets
#                         MDB_PID, MDB_PORT, MDB_SOCKET, MDB_DIR. Status 1,
#                         with the error log's tail on stderr, on failure.
#   mariadb_root [ARGS...]
#                         the mariadb client as root over MDB_SOCKET.
#   mariadb_stop          TERM to MDB_PID, up to 10 s, then KILL; clears
#                         MDB_PID. Does nothing when none is running.
#
# One server at a time per shell (the MDB_* variables).

mariadb_unavailable() {
  local tool
  for tool in mariadbd mariadb-install-db mariadb mariadb-admin; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || { echo "$tool is not installed"; return 0; }
  done
}

# mariadbd lives in /usr/sbin, which a non-root PATH may lack.
_mariadb_bin() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

mariadb_root() {
  # --no-defaults must come first: else /etc/mysql/my.cnf points at /run/mysqld.
  mariadb --no-defaults -S "$MDB_SOCKET" -uroot "$@"
}

mariadb_start() {
  local dir=$1 port=${2:-} user auth deadline
  MDB_DIR=$dir
  MDB_SOCKET=$dir/mysqld.sock
  if [ -z "$port" ]; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  fi
  MDB_PORT=$port
  mkdir -p "$dir" || return 1
  user=$(id -un)
  auth=normal
  [ "$(id -u)" = 0 ] && auth=socket
  if [ ! -d "$dir/data/mysql" ]; then
    if ! "$(_mariadb_bin mariadb-install-db)" --no-defaults --user="$user" --datadir="$dir/data" --skip-test-db \
      --auth-root-authentication-method="$auth" >"$dir/install-db.log" 2>&1; then
      echo "mariadb-install-db failed:" >&2
      tail -n 5 "$dir/install-db.log" >&2
      return 1
    fi
  fi
  # A small buffer pool and redo log: the tests hold a few rows.
  "$(_mariadb_bin mariadbd)" --no-defaults --user="$user" --datadir="$dir/data" \
    --socket="$MDB_SOCKET" --port="$MDB_PORT" --bind-address=127.0.0.1 \
    --pid-file="$dir/mariadbd.pid" --log-error="$dir/error.log" --skip-name-resolve \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M --performance-schema=OFF --skip-log-bin \
    </dev/null >"$dir/stdout.log" 2>&1 &
  MDB_PID=$!
  deadline=$((SECONDS + ${MDB_READY_SECONDS:-30}))
  until "$(_mariadb_bin mariadb-admin)" --no-defaults -S "$MDB_SOCKET" -uroot ping >/dev/null 2>&1; do
    if ! kill -0 "$MDB_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "mariadbd did not get ready on port $MDB_PORT:" >&2
      tail -n 5 "$dir/error.log" >&2
      mariadb_stop
      return 1
    fi
    sleep 0.1
  done
}

# shellcheck source=SCRIPTDIR/process.sh
source "$(dirname "${BASH_SOURCE[0]}")/process.sh"

mariadb_stop() {
  stop_pid "${MDB_PID:-}"
  MDB_PID=
}
