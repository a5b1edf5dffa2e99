# shellcheck shell=bash
# Starting and stopping `petricore serve` (and other processes) in the
# integration tests. Needs $PETRICORE; free_ports comes from lib/process.sh.

# shellcheck source=SCRIPTDIR/process.sh
source "$(dirname "${BASH_SOURCE[0]}")/process.sh"

# serve_start LOG ARGS...: serve on a free loopback port in the background
# (sets SERVE_PID and SERVE_URL); waits up to 10 s for /healthz.
serve_start() {
  local log=$1 port deadline
  shift
  port=$(free_ports 1)
  SERVE_URL=http://127.0.0.1:$port
  "$PETRICORE" --log-level info serve --listen "127.0.0.1:$port" "$@" </dev/null >"$log" 2>&1 &
  SERVE_PID=$!
  deadline=$(($(date +%s) + 10))
  until curl -sf --max-time 1 -o /dev/null "$SERVE_URL/healthz"; do
    if ! kill -0 "$SERVE_PID" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
      echo "serve did not answer on $SERVE_URL; its log:" >&2
      tail -n 10 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
}
