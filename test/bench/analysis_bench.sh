#!/bin/bash
# Analysis benchmark: how long one job's analysis takes, and how many
# Prometheus requests it needs, against a local Prometheus (Debian's 2.42)
# holding a finished 1-hour, 4-node job sampled every 15 s (92 series, 241
# samples each; scripts/lib/synthetic_jobs.py, backfilled with
# promtool). The figure to meet: the first /api/v1/jobs/<id>/usage in
# <= 150 ms with <= 3 Prometheus requests. Until serve is measured here too,
# it times `petricore report <id> --json --accounting prometheus` end to end
# (a new process each time: libcurl loaded, 2 accounting requests, 1 range
# query, JSON out), so the figures include what serve would not pay.
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

# --- petricore serve: the first /api/v1/jobs/<id>/usage, then the cached
# answer under wrk (32 connections), then the server's RSS.
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
