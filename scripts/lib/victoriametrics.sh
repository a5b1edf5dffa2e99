# shellcheck shell=bash
# A real VictoriaMetrics single-node (Debian's `victoria-metrics`) for
# integration tests: on a free loopback port, over a storage directory the
# test owns, stopped by PID. It serves the same /api/v1/query and
# /api/v1/query_range as Prometheus, so a test points petricore at VM_URL.
#
#   source "$(dirname "$0")/../../scripts/lib/victoriametrics.sh"
#   why=$(vm_unavailable) && [ -z "$why" ] || echo "skipped: $why"
#   vm_start "$T/vm" || bail "..."          # sets VM_PID, VM_PORT, VM_URL
#   vm_import_openmetrics "$T/data.om" || bail "..."
#   vm_stop                                 # also safe in an EXIT trap
#
# Functions:
#   vm_unavailable              prints why VictoriaMetrics cannot be used here
#                               (victoria-metrics or curl missing); prints
#                               nothing when it can.
#   vm_start DIR [ARGS...]      starts victoria-metrics with its storage at
#                               DIR/data (created if missing), its log at
#                               DIR/victoria-metrics.log, a retention of 100
#                               years (so back-dated test data is kept), on
#                               VM_PORT (a free port when unset) and any extra
#                               ARGS (e.g. -promscrape.config=FILE). Waits up
#                               to VM_READY_SECONDS (30) for /health. Sets
#                               VM_PID, VM_PORT, VM_URL. Status 1, with the
#                               log's tail on stderr, when it does not get
#                               ready (the process is then stopped).
#   vm_import_openmetrics FILE  loads the samples of an OpenMetrics FILE (the
#                               one prom_backfill gives promtool: timestamps
#                               in integer seconds, "# EOF" last) through the
#                               import API a site would use for historical data,
#                               /api/v1/import/prometheus, which takes the
#                               Prometheus text format, timestamps in
#                               milliseconds: the only change made is to append
#                               "000" to each timestamp. Then flushes, so the
#                               samples are queryable at once. Status 1, saying
#                               why, on failure.
#   vm_get PATH [CURL ARGS...]  GET $VM_URL$PATH with a 2-second limit, body on
#                               stdout (as prom_get).
#   vm_stop                     TERM to VM_PID, up to 10 s, then KILL; clears
#                               VM_PID. Does nothing when none is running.
#
# One VictoriaMetrics at a time per shell (the VM_* variables). Proxies from
# the environment are ignored for loopback.

# shellcheck source=SCRIPTDIR/process.sh
source "$(dirname "${BASH_SOURCE[0]}")/process.sh"

vm_unavailable() {
  local tool
  for tool in victoria-metrics curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed"; return 0; }
  done
}

vm_start() {
  local dir=$1
  shift
  VM_PORT=${VM_PORT:-$(free_ports 1)}
  VM_URL=http://127.0.0.1:$VM_PORT
  mkdir -p "$dir/data" || return 1
  victoria-metrics -storageDataPath="$dir/data" -httpListenAddr="127.0.0.1:$VM_PORT" -retentionPeriod=100y "$@" \
    </dev/null >"$dir/victoria-metrics.log" 2>&1 &
  VM_PID=$!
  wait_ready victoria-metrics "$VM_PID" "$VM_URL/health" "$dir/victoria-metrics.log" "${VM_READY_SECONDS:-30}" ||
    { vm_stop; return 1; }
}

vm_import_openmetrics() {
  local file=$1 status
  # Comments (# TYPE, # EOF) carry no samples; every other line ends in its
  # timestamp in seconds.
  status=$(sed -e '/^#/d' -e 's/ \([0-9][0-9]*\)$/ \1000/' "$file" |
    curl -s --noproxy '*' --max-time 60 -o "$file.vm-import.log" -w '%{http_code}' \
      --data-binary @- "$VM_URL/api/v1/import/prometheus")
  if [ "$status" != 204 ]; then
    echo "victoria-metrics refused the import of $file (HTTP ${status:-none}): $(head -c 300 "$file.vm-import.log")" >&2
    return 1
  fi
  curl -sf --noproxy '*' --max-time 30 -o /dev/null "$VM_URL/internal/force_flush" ||
    { echo "victoria-metrics did not flush after importing $file" >&2; return 1; }
}

vm_get() {
  local path=$1
  shift
  curl -sf --max-time 2 --noproxy '*' "$VM_URL$path" "$@"
}

vm_stop() {
  local pid=${VM_PID:-}
  VM_PID=
  stop_pid "$pid"
}
