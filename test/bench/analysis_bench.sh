#!/bin/bash
# Analysis benchmark: how long one job's analysis takes, and how many
# Prometheus requests it needs, against a local Prometheus (Debian's 2.42)
# holding a finished 1-hour, 4-node job sampled every 15 s (92 series, 241
# samples each; scripts/lib/synthetic_jobs.py, backfilled with
# promtool). The figure to meet: the first /api/v1/jobs/<id>/usage in
# <= 150 ms with <= 3 Prometheus requests and one accounting call. It times
# `petricore report <id> --json --accounting prometheus` end to end (a new
# process each time: libcurl loaded, 2 accounting requests, 1 range query,
# JSON out), then the cold /api/v1/jobs/<id>/usage of a fresh `petricore
# serve`, with --accounting prometheus and with --accounting sacct (a
# stand-in sacct that counts its runs), and the accounting calls each made.
# With wrk installed it goes on with serve under load.
#
# Usage: test/bench/analysis_bench.sh BUILD-DIR | PETRICORE-BINARY
# Knobs (environment): RUNS=20 (warm runs), KEEP=1 (keep the temp dir).
# Prints figures; never fails on a timing. Exit 77 with "SKIPPED: <why>" when
# it cannot run (prometheus, promtool, python3 or curl missing, no report
# subcommand); everything it starts is stopped by PID in the EXIT trap.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$HERE/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$HERE/../../scripts/lib/harness.sh"

ARG=${1:-}
if [ -z "$ARG" ]; then
  echo "usage: $0 BUILD-DIR | PETRICORE-BINARY" >&2
  exit 2
fi
if [ -d "$ARG" ]; then PETRICORE=$ARG/src/petricore; else PETRICORE=$ARG; fi
[ -x "$PETRICORE" ] || { echo "not executable: $PETRICORE" >&2; exit 2; }
RUNS=${RUNS:-20}

skip() {
  echo "SKIPPED: $*"
  exit 77
}
why=$(prom_unavailable promtool python3)
[ -z "$why" ] || skip "$why"
"$PETRICORE" report --help 2>/dev/null | grep -q -- --accounting || skip "$PETRICORE has no report subcommand yet"
loopback_without_proxy

T=$(mktemp -d /tmp/petricore-abench.XXXXXX) || exit 1
cleanup() {
  if [ -n "${COLD_PID:-}" ]; then
    kill "$COLD_PID" 2>/dev/null
    wait "$COLD_PID" 2>/dev/null
  fi
  prom_stop
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

JOB=$(random_job_id)
GPU_JOB=$((JOB + 1))
END=$(prom_backfill_end)
prom_backfill_synthetic "$T/data.om" "$T/tsdb" "$JOB" "$GPU_JOB" $((END - 3600)) "$END" || exit 1
prom_start "$T" "$T/tsdb" || exit 1

now_ns() { date +%s%N; }
# run_ms FILE-PREFIX ARGS...: runs petricore, prints its wall time in ms.
run_ms() {
  local out=$1 t0 t1
  shift
  t0=$(now_ns)
  "$PETRICORE" "$@" >"$out.out" 2>"$out.err"
  t1=$(now_ns)
  echo $(((t1 - t0) / 1000))
}
stats() {  # microseconds on stdin -> "min / median / p90 / max ms"
  sort -n | awk '{ v[NR] = $1 } END {
    p = int(NR * 0.9 + 0.5); if (p < 1) p = 1
    printf "min %.1f / median %.1f / p90 %.1f / max %.1f ms (n=%d)", v[1] / 1000, v[int((NR + 1) / 2)] / 1000,
      v[p] / 1000, v[NR] / 1000, NR }'
}
report() {
  run_ms "$1" --log-level debug report "$2" --json --prometheus "$PROM_URL" --accounting prometheus
}

echo "# petricore $("$PETRICORE" --version 2>/dev/null | head -n 1), $(prometheus --version 2>&1 | head -n 1 | cut -d' ' -f1-3)"
echo "# host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# job $JOB: 4 nodes, 1 hour, 15 s samples, $(grep -c "slurm_job=\"$JOB\"" "$T/data.om") samples"

first=$(report "$T/first" "$JOB")
[ -s "$T/first.out" ] || { echo "report failed: $(head -c 300 "$T/first.err")"; exit 1; }
analysed=$(grep -m1 'analysed in' "$T/first.err" | sed 's/.*debug: //')

for _ in $(seq 1 "$RUNS"); do report "$T/warm" "$JOB"; done >"$T/warm.us"
for _ in $(seq 1 "$RUNS"); do run_ms "$T/version" --version; done >"$T/version.us"
gpu=$(report "$T/gpu" "$GPU_JOB")

requests=$(sed -n 's/.* \([0-9][0-9]*\) Prometheus requests.*/\1/p' "$T/first.err" | head -n 1)
gpu_requests=$(sed -n 's/.* \([0-9][0-9]*\) Prometheus requests.*/\1/p' "$T/gpu.err" | head -n 1)
echo
echo "first report --json (Prometheus just started):  $(awk -v u="$first" 'BEGIN { printf "%.1f", u / 1000 }') ms end to end"
echo "  analyzer: $analysed"
echo "  requests:"
grep 'debug: /api/v1/' "$T/first.err" | sed 's/.*debug: /    /' | cut -c1-150
echo "warm report --json:                             $(stats <"$T/warm.us")"
echo "process start + exit (petricore --version):     $(stats <"$T/version.us")"
echo "GPU job (1 node, 2 GPUs) report --json:         $(awk -v u="$gpu" 'BEGIN { printf "%.1f", u / 1000 }') ms, ${gpu_requests:-?} requests"
echo "JSON output: $(wc -c <"$T/first.out") bytes"
echo
verdict() { if [ "$1" ]; then echo "yes"; else echo "NO"; fi; }
echo "target: first usage <= 150 ms: $(verdict "$(awk -v u="$first" 'BEGIN { if (u <= 150000) print 1 }')") ($(awk -v u="$first" 'BEGIN { printf "%.1f", u / 1000 }') ms);" \
  "<= 3 Prometheus requests: $(verdict "$([ -n "$requests" ] && [ "$requests" -le 3 ] && echo 1)") (${requests:-?})"

# --- petricore serve, cold: a fresh server (debug log) answers one
# /api/v1/jobs/<id>/usage, then stops. The accounting calls it made are
# counted where they show: with --accounting prometheus each job() look-up
# starts with a count_over_time(jobs_info...) range query (then one instant
# query) in the debug log; with --accounting sacct the stand-in sacct below
# appends each of its command lines to a file.
START=$((END - 3600))
cat >"$T/sacct" <<SACCT
#!/bin/sh
# Counts its runs; answers for job $JOB only, as sacct --parsable2 would.
echo "\$*" >>"$T/sacct.calls"
d='|'
for a in "\$@"; do case "\$a" in --delimiter=*) d=\${a#--delimiter=};; esac; done
case " \$* " in
  *" --jobs=$JOB "* | *" --user=alice "*)
    echo "$JOB|$JOB|alice|1001|research|batch|COMPLETED|$START|$START|$END|120|16|billing=16,cpu=16,mem=32000M,node=4|32000M|4|node[1-4]||||bench" |
      sed "s/|/\$d/g" ;;
esac
SACCT
chmod +x "$T/sacct"

# serve_cold NAME ARGS...: sets COLD_HTTP (the status), COLD_MS and COLD_NEW,
# a file of the log lines written from the request on. It asks for
# COLD_PATH (default: the job's usage).
serve_cold() {
  local name=$1 port got lines
  shift
  port=$(free_ports 1)
  "$PETRICORE" --log-level debug serve --listen "127.0.0.1:$port" --prometheus "$PROM_URL" "$@" \
    >"$T/$name.log" 2>&1 &
  COLD_PID=$!
  for _ in $(seq 1 100); do
    curl -sf --max-time 1 "http://127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.05
  done
  lines=$(wc -l <"$T/$name.log")
  got=$(curl -s -o "$T/$name.json" -w '%{http_code} %{time_total}' --max-time 10 \
    -H 'X-Remote-User: alice' "http://127.0.0.1:$port${COLD_PATH:-/api/v1/jobs/$JOB/usage}")
  sleep 0.2  # the request's own log line follows the answer
  COLD_HTTP=${got% *}
  COLD_MS=$(awk -v s="${got#* }" 'BEGIN { printf "%.1f", s * 1000 }')
  COLD_NEW=$T/$name.new
  tail -n +$((lines + 1)) "$T/$name.log" >"$COLD_NEW"
  kill "$COLD_PID" 2>/dev/null
  wait "$COLD_PID" 2>/dev/null
  COLD_PID=
}
prometheus_requests() { grep -c 'debug: /api/v1/' "$1"; }
jobs_info_lookups() { grep -c 'debug: /api/v1/query_range: .* for sum(count_over_time(jobs_info' "$1"; }
analysed_line() { grep -m1 'analysed in' "$1" | sed 's/.*debug: /    analyzer: /'; }

echo
echo "serve, cold /api/v1/jobs/$JOB/usage of a fresh server (target: one accounting call):"
serve_cold cold-prometheus --accounting prometheus
cold_prom_lookups=$(jobs_info_lookups "$COLD_NEW")
echo "  --accounting prometheus: HTTP $COLD_HTTP in $COLD_MS ms; accounting calls: $cold_prom_lookups" \
  "(jobs_info look-ups, 2 requests each); Prometheus requests: $(prometheus_requests "$COLD_NEW")"
analysed_line "$COLD_NEW"
: >"$T/sacct.calls"
serve_cold cold-sacct --accounting sacct --sacct "$T/sacct"
cold_sacct_runs=$(grep -c -- "--jobs=$JOB" "$T/sacct.calls")
echo "  --accounting sacct:      HTTP $COLD_HTTP in $COLD_MS ms; accounting calls: $cold_sacct_runs" \
  "(sacct runs); Prometheus requests: $(prometheus_requests "$COLD_NEW")"
analysed_line "$COLD_NEW"
echo "target: one accounting call per cold usage: $(verdict "$([ "$cold_prom_lookups" = 1 ] &&
  [ "$cold_sacct_runs" = 1 ] && echo 1)") (prometheus $cold_prom_lookups, sacct $cold_sacct_runs)"

# The user page lists the user's jobs and summarises the finished ones: with
# sacct the listed records are analysed as listed (no --jobs look-up after
# the listing); with jobs_info each job is looked up after the coarse listing.
echo "serve, cold /api/v1/users/alice (one finished job) of a fresh server:"
: >"$T/sacct.calls"
COLD_PATH=/api/v1/users/alice serve_cold user-sacct --accounting sacct --sacct "$T/sacct"
user_sacct_runs=$(wc -l <"$T/sacct.calls")
echo "  --accounting sacct:      HTTP $COLD_HTTP in $COLD_MS ms; accounting calls: $user_sacct_runs" \
  "(sacct runs: $(grep -c -- '--user=alice' "$T/sacct.calls") listing, $(grep -c -- '--jobs=' "$T/sacct.calls") job look-ups);" \
  "Prometheus requests: $(prometheus_requests "$COLD_NEW")"
COLD_PATH=/api/v1/users/alice serve_cold user-prometheus --accounting prometheus
echo "  --accounting prometheus: HTTP $COLD_HTTP in $COLD_MS ms; jobs_info look-ups after the listing:" \
  "$(jobs_info_lookups "$COLD_NEW"); Prometheus requests: $(prometheus_requests "$COLD_NEW")"
echo "target: one sacct run for the user page: $(verdict "$([ "$user_sacct_runs" = 1 ] && echo 1)") ($user_sacct_runs)"

# --- petricore serve under load: the first /api/v1/jobs/<id>/usage, then
# the cached answer under wrk (32 connections), then the server's RSS.
if ! command -v wrk >/dev/null; then
  echo "serve: skipped (wrk not installed)"
  exit 0
fi
SERVE_PORT=$(free_ports 1)
"$PETRICORE" --log-level warning serve --listen "127.0.0.1:$SERVE_PORT" --prometheus "$PROM_URL" --accounting prometheus \
  >"$T/serve.log" 2>&1 &
SERVE_PID=$!
trap 'kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 100); do
  curl -sf --max-time 1 "http://127.0.0.1:$SERVE_PORT/healthz" >/dev/null && break
  sleep 0.05
done
if ! kill -0 "$SERVE_PID" 2>/dev/null; then
  echo "serve: did not start: $(head -c 300 "$T/serve.log")"
  exit 1
fi
URL="http://127.0.0.1:$SERVE_PORT/api/v1/jobs/$JOB/usage"
first_serve=$(curl -s -o "$T/serve-first.json" -w '%{http_code} %{time_total}' --max-time 10 "$URL")
echo
echo "serve: first $URL: HTTP ${first_serve% *} in $(awk -v s="${first_serve#* }" 'BEGIN { printf "%.1f", s * 1000 }') ms"
wrk -t2 -c32 -d10s --latency "$URL" >"$T/wrk.txt" 2>&1
echo "serve: cached answer under wrk -t2 -c32 -d10s:"
grep -E 'Requests/sec|Latency  |  50%|  99%|Non-2xx|Socket errors' "$T/wrk.txt" | sed 's/^/    /'

# --- charts (issue 4): the first /plot and /pdf of the cached job (drawn),
# then /plot under wrk (drawn once, then from the rendered cache). Targets:
# /plot >= 500 req/s; the PDF of this 1-hour 4-node job <= 500 ms (the
# drawing alone is timed by render_bench).
BASE="http://127.0.0.1:$SERVE_PORT"
for route in "/plot/$JOB/jobs_cpu_percent" "/pie/$JOB/" "/pdf/$JOB" "/jobs/$JOB"; do
  first=$(curl -s -o /dev/null -w '%{http_code} %{time_total} %{size_download}' --max-time 10 "$BASE$route")
  read -r code secs size <<<"$first"
  echo "serve: first $route: HTTP $code in $(awk -v s="$secs" 'BEGIN { printf "%.1f", s * 1000 }') ms, $size bytes"
done
wrk -t2 -c32 -d10s --latency "$BASE/plot/$JOB/jobs_cpu_percent" >"$T/wrk-plot.txt" 2>&1
echo "serve: /plot/$JOB/jobs_cpu_percent under wrk -t2 -c32 -d10s (target >= 500 req/s):"
grep -E 'Requests/sec|Latency  |  50%|  99%|Non-2xx|Socket errors' "$T/wrk-plot.txt" | sed 's/^/    /'
# The job page as browsers fetch it (Accept-Encoding: gzip): the first
# compresses the cached page once, later ones send the kept gzip form.
for n in first second; do
  got=$(curl -s -o /dev/null --compressed -w '%{http_code} %{time_total} %{size_download}' --max-time 10 "$BASE/jobs/$JOB")
  read -r code secs size <<<"$got"
  echo "serve: $n /jobs/$JOB with gzip: HTTP $code in $(awk -v s="$secs" 'BEGIN { printf "%.1f", s * 1000 }') ms, $size bytes on the wire"
done
wrk -t2 -c8 -d5s --latency -H 'Accept-Encoding: gzip' "$BASE/jobs/$JOB" >"$T/wrk-page.txt" 2>&1
echo "serve: /jobs/$JOB with gzip under wrk -t2 -c8 -d5s:"
grep -E 'Requests/sec|  50%|  99%|Non-2xx|Socket errors' "$T/wrk-page.txt" | sed 's/^/    /'
echo "serve: RSS after the run: $(awk '/VmRSS|VmHWM/ { printf "%s %.1f MiB  ", $1, $2 / 1024 }' "/proc/$SERVE_PID/status")"

# The same /plot drawn at every request (--rendered-cache-mb 0): what a
# stream of different charts costs.
kill "$SERVE_PID" 2>/dev/null
wait "$SERVE_PID" 2>/dev/null
"$PETRICORE" --log-level warning serve --listen "127.0.0.1:$SERVE_PORT" --prometheus "$PROM_URL" --accounting prometheus \
  --rendered-cache-mb 0 >"$T/serve-nocache.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 100); do
  curl -sf --max-time 1 "$BASE/healthz" >/dev/null && break
  sleep 0.05
done
curl -s -o /dev/null --max-time 10 "$BASE/api/v1/jobs/$JOB/usage"
wrk -t2 -c8 -d10s --latency "$BASE/plot/$JOB/jobs_cpu_percent" >"$T/wrk-plot-drawn.txt" 2>&1
echo "serve: /plot drawn at every request (--rendered-cache-mb 0), wrk -t2 -c8 -d10s:"
grep -E 'Requests/sec|  50%|  99%|Non-2xx|Socket errors' "$T/wrk-plot-drawn.txt" | sed 's/^/    /'
