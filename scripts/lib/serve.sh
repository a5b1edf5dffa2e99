# shellcheck shell=bash
# Starting and stopping `petricore serve` (and other processes) in the
# integration tests. Needs $PETRICORE; free_ports comes from lib/process.sh.

# shellcheck source=SCRIPTDIR/process.sh
source "$(dirname "${BASH_SOURCE[0]}")/process.sh"

# serve_start LOG ARGS...: serve on a free loopback port in the background
# (sets SERVE_PID and SERVE_URL); waits up to 10 s for /healthz. Without a
# job archive (archive_test.sh tests it): the suites that use this check
# what serve answers from Prometheus, and the system's archive file is not
# theirs to write.
serve_start() {
  local log=$1 port
  shift
  port=$(free_ports 1)
  SERVE_URL=http://127.0.0.1:$port
  printf '[archive]\nstore = "none"\n' >"$log.toml"
  "$PETRICORE" --config "$log.toml" --log-level info serve --listen "127.0.0.1:$port" "$@" </dev/null >"$log" 2>&1 &
  SERVE_PID=$!
  wait_ready serve "$SERVE_PID" "$SERVE_URL/healthz" "$log" 10
}
