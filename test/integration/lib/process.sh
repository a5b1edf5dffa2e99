# shellcheck shell=bash
# Stopping a process a test started, the one way every test and library does.

# stop_pid PID [SECONDS]: TERM, up to SECONDS (10) for it to go, then KILL;
# reaps it when it is our child. Nothing to do for an empty or gone PID.
stop_pid() {
  local pid=$1 tenths=$((${2:-10} * 10)) _
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 "$tenths"); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  return 0
}
