# shellcheck shell=bash
# A real Prometheus (Debian's `prometheus`) for integration tests: on a free
# loopback port, over a TSDB directory the test owns, stopped by PID; and a
# real Pushgateway (Debian's `prometheus-pushgateway`) for it to scrape.
#
#   source "$(dirname "$0")/../../scripts/lib/prometheus.sh"
#   why=$(prom_unavailable promtool) && [ -z "$why" ] || skip "$why"
#   prom_backfill "$T/data.om" "$T/tsdb"     # optional: historical samples
#   prom_start "$T" "$T/tsdb" || bail "..."   # sets PROM_PID, PROM_PORT, PROM_URL
#   prom_get /api/v1/query --data-urlencode 'query=up'
#   prom_stop                                 # also safe in an EXIT trap
#
# With a Pushgateway (why=$(prom_unavailable prometheus-pushgateway)):
#   pushgateway_start "$T" || bail "..."      # sets PGW_PID, PGW_PORT, PGW_URL
#   prom_pushgateway_config "$T/prometheus.yml" "127.0.0.1:$PGW_PORT" 1s
#   prom_start "$T" "$T/tsdb" "$T/prometheus.yml" || bail "..."
#   prom_stop; pushgateway_stop               # also safe in an EXIT trap
#
# Functions:
#   prom_unavailable [TOOL...]  prints why Prometheus cannot be used here
#                               (prometheus, curl or an extra TOOL such as
#                               promtool missing); prints nothing when it can.
#   prom_backfill FILE TSDB     turns an OpenMetrics FILE (ending "# EOF",
#                               timestamps in seconds) into blocks in TSDB with
#                               `promtool tsdb create-blocks-from openmetrics`.
#                               Blocks are cut at 2-hour boundaries and must
#                               be older than anything Prometheus appends
#                               later: use times at least 2 hours in the past.
#                               Output goes to FILE.log; status 1 on failure.
#   random_job_id               a random 7-digit job id: runs that share a
#                               Prometheus label space never collide.
#   prom_backfill_end           an end time 3 hours ago on a 15-s step: a job
#                               ending then is old enough to backfill.
#   prom_backfill_synthetic FILE TSDB JOB_A JOB_B START END
#                               lib/synthetic_jobs.py's two jobs (its header
#                               says what they did) between START and END,
#                               written to FILE and backfilled into TSDB;
#                               status 1, saying why, on failure.
#   prom_start DIR TSDB [CONFIG]
#                               starts Prometheus with its log at DIR/prometheus.log,
#                               storage TSDB (created if missing), CONFIG (default:
#                               DIR/prometheus.yml written with no scrape targets,
#                               so the TSDB holds only what the test put there),
#                               retention 30 days, on PROM_PORT (a free port when
#                               unset). Waits up to PROM_READY_SECONDS (30) for
#                               /-/ready. Sets PROM_PID, PROM_PORT, PROM_URL.
#                               Status 1, with the log's tail on stderr, when it
#                               does not get ready (the process is then stopped).
#   prom_get PATH [CURL ARGS...]
#                               GET $PROM_URL$PATH with a 2-second limit, body on
#                               stdout; with --data-urlencode arguments, add -G
#                               yourself or pass them as a POST form.
#   prom_stop                   TERM to PROM_PID, up to 10 s, then KILL; clears
#                               PROM_PID. Does nothing when none is running.
#   prom_pushgateway_config FILE TARGET INTERVAL
#                               writes FILE (its directory created if missing):
#                               a Prometheus config scraping the Pushgateway at
#                               TARGET (host:port) every INTERVAL (e.g. 1s; also
#                               the evaluation interval) with honor_labels: true,
#                               so the pushed job and instance labels are kept.
#   pushgateway_start DIR [PORT]
#                               starts prometheus-pushgateway on 127.0.0.1:PORT
#                               (a free port when not given) with its log at
#                               DIR/pushgateway.log (DIR created if missing).
#                               Waits up to PGW_READY_SECONDS (10) for /-/ready.
#                               Sets PGW_PID, PGW_PORT, PGW_URL. Status 1, with
#                               the log's tail on stderr, when it does not get
#                               ready (the process is then stopped).
#   pushgateway_stop            TERM to PGW_PID, up to 10 s, then KILL; clears
#                               PGW_PID. Does nothing when none is running.
#
# One Prometheus and one Pushgateway at a time per shell (the PROM_* and
# PGW_* variables). Proxies from the environment are ignored for loopback.

# shellcheck source=SCRIPTDIR/process.sh
source "$(dirname "${BASH_SOURCE[0]}")/process.sh"

prom_unavailable() {
  local tool
  for tool in prometheus curl "$@"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed"; return 0; }
  done
}

prom_backfill() {
  local file=$1 tsdb=$2
  mkdir -p "$tsdb" || return 1
  if ! promtool tsdb create-blocks-from openmetrics "$file" "$tsdb" >"$file.log" 2>&1; then
    echo "promtool could not backfill $file into $tsdb:" >&2
    tail -n 5 "$file.log" >&2
    return 1
  fi
}

random_job_id() { echo $(((RANDOM * 32768 + RANDOM) % 9000000 + 1000000)); }

prom_backfill_end() { echo $((($(date +%s) - 3 * 3600) / 15 * 15)); }

prom_backfill_synthetic() {
  local file=$1 tsdb=$2
  shift 2
  python3 "$(dirname "${BASH_SOURCE[0]}")/synthetic_jobs.py" "$@" >"$file" && [ -s "$file" ] ||
    { echo "lib/synthetic_jobs.py $* wrote nothing to $file" >&2; return 1; }
  prom_backfill "$file" "$tsdb"
}

prom_get() {
  local path=$1
  shift
  curl -sf --max-time 2 --noproxy '*' "$PROM_URL$path" "$@"
}

prom_start() {
  local dir=$1 tsdb=$2 config=${3:-}
  PROM_PORT=${PROM_PORT:-$(free_ports 1)}
  PROM_URL=http://127.0.0.1:$PROM_PORT
  mkdir -p "$dir" "$tsdb" || return 1
  if [ -z "$config" ]; then
    config=$dir/prometheus.yml
    cat >"$config" <<'EOF'
global:
  scrape_interval: 15s
  evaluation_interval: 15s
scrape_configs: []
EOF
  fi
  prometheus --config.file="$config" --storage.tsdb.path="$tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT" --storage.tsdb.retention.time=30d \
    </dev/null >"$dir/prometheus.log" 2>&1 &
  PROM_PID=$!
  wait_ready prometheus "$PROM_PID" "$PROM_URL/-/ready" "$dir/prometheus.log" "${PROM_READY_SECONDS:-30}" ||
    { prom_stop; return 1; }
}

prom_stop() {
  local pid=${PROM_PID:-}
  PROM_PID=
  stop_pid "$pid"
}

prom_pushgateway_config() {
  local file=$1 target=$2 interval=$3
  mkdir -p "$(dirname "$file")" || return 1
  cat >"$file" <<EOF
global:
  scrape_interval: $interval
  evaluation_interval: $interval
scrape_configs:
  - job_name: pushgateway
    honor_labels: true          # keep the pushed job/instance labels
    static_configs:
      - targets: ['$target']
EOF
}

pushgateway_start() {
  local dir=$1
  PGW_PORT=${2:-$(free_ports 1)}
  PGW_URL=http://127.0.0.1:$PGW_PORT
  mkdir -p "$dir" || return 1
  prometheus-pushgateway --web.listen-address="127.0.0.1:$PGW_PORT" \
    </dev/null >"$dir/pushgateway.log" 2>&1 &
  PGW_PID=$!
  wait_ready pushgateway "$PGW_PID" "$PGW_URL/-/ready" "$dir/pushgateway.log" "${PGW_READY_SECONDS:-10}" ||
    { pushgateway_stop; return 1; }
}

pushgateway_stop() {
  local pid=${PGW_PID:-}
  PGW_PID=
  stop_pid "$pid"
}
