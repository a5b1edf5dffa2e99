# shellcheck shell=bash
# Stopping a process a test started, and finding free ports for one: the
# one way every test and library does.

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
