# shellcheck shell=bash
# Starting, waiting for and stopping a process a test runs, and finding free
# ports for it: the one way every test and library does.

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

# free_ports [N]: N (default 1) distinct free TCP ports on 127.0.0.1, held
# open together while chosen, printed on one line (a small race remains
# until the caller binds them; fine for tests).
free_ports() {
  python3 - "${1:-1}" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# wait_ready NAME PID URL LOG SECONDS: polls URL every 0.1 s until it answers
# 2xx while PID still runs (not another server on that port); status 1, with
# LOG's last lines on stderr, once PID is gone or SECONDS have passed.
wait_ready() {
  local name=$1 pid=$2 url=$3 log=$4 deadline=$(($(date +%s) + $5))
  until curl -sf --max-time 2 --noproxy '*' -o /dev/null "$url" && kill -0 "$pid" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
      echo "$name did not answer on $url; last lines of $log:" >&2
      tail -n 10 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
}
