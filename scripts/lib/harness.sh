# shellcheck shell=bash
# The set-up and clean-up every integration script (and the analysis bench)
# does around its checks, one way:
#
#   petricore_binary "${1:-}"   the binary under test, from the script's
#                               argument, as an absolute path in PETRICORE;
#                               exit 2 with the usage line when it is
#                               missing or not executable
#   loopback_without_proxy      no HTTP proxy from the environment: every
#                               service the tests talk to is on loopback
#   tail_logs LINES FILE...     the last LINES lines of each non-empty FILE
#                               on stderr, each under a "--- last lines of"
#                               header (for a failed run's clean-up)
#   remove_temp_dir DIR         rm -rf DIR, or keep it and say where when
#                               KEEP=1

petricore_binary() {
  if [ -z "${1:-}" ]; then
    echo "usage: $0 PETRICORE_BINARY" >&2
    exit 2
  fi
  [ -x "$1" ] || { echo "not executable: $1" >&2; exit 2; }
  # shellcheck disable=SC2034 # read by the script that sources this
  PETRICORE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
}

loopback_without_proxy() {
  unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
  export no_proxy='*' NO_PROXY='*'
}

tail_logs() {
  local lines=$1 log
  shift
  for log in "$@"; do
    [ -s "$log" ] || continue
    echo "--- last lines of $log:" >&2
    tail -n "$lines" "$log" >&2
  done
}

remove_temp_dir() {
  if [ "${KEEP:-0}" = 1 ]; then echo "# kept $1" >&2; else rm -rf "$1"; fi
}
