#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# End-to-end test of the analysis side against a REAL Prometheus (Debian's
# prometheus 2.42) and a REAL VictoriaMetrics single-node (Debian's
# victoria-metrics 1.79), which hold the same two FINISHED jobs with known
# values: written once as OpenMetrics (a 1-hour window ending 3 hours ago,
# 15 s samples), backfilled into Prometheus with `promtool tsdb
# create-blocks-from openmetrics` and loaded into VictoriaMetrics through its
# import API (/api/v1/import/prometheus: the same lines, the timestamps in
# milliseconds), the ways a site loads history into each:
#
#   job A, 4 nodes node1..node4, 4 CPUs and 8000 MB each, user alice,
#     account research, no GPUs. cpu_percent 125/130/130/135 (sum 520, one
#     instant 600), per-core CPU time even, memory peaks 2000..3500 MB of
#     32000, read 2600 MB, write 1000 MB, 10..40 open files, python3 up to
#     8 threads per node, scratch used on node1.
#     => cpu_efficiency (critical, 32.5 %) and memory_overallocated
#        (warning, 34 %) fire; no other rule does.
#   job B, 1 node gpu1, GPUs 0 and 1 held. utilization_gpu (instance
#     "gpu1.cluster:9445") is 0 for GPUs 0 and 1, 90 for GPU 2 (another
#     job's), and 50 on gpu10 (a node whose name starts the same).
#     => gpu_unused fires: the join on the short node name and the GPU
#        index is right.
#   six short jobs of carol (lib/edge_jobs.py, loaded the same ways): one
#     sample on a 300-s window edge, one just past it, samples every 60 s
#     and every 120 s, a 10-minute gap, two samples 1 s apart.
#     => start and end are the first and last sample, exactly.
#   a running job of dave on live1, pushed to a real Pushgateway that both
#     stores scrape every 5 s (VictoriaMetrics with -promscrape.config, the
#     same scrape_configs): RUNNING, no end, its allocation (skipped, with a
#     line saying why, without prometheus-pushgateway).
#
# For each backend it runs `petricore report <id> --json --prometheus URL
# --accounting prometheus` (the accounting comes from jobs_info too) and
# checks numbers, findings, the request count (--log-level debug) and the
# unknown-job error, carol's jobs' times; then `serve` over the same backend
# for the job's usage JSON and alice's and carol's user pages (jobs_of_user's
# query). Every check line names its backend. Last, the JSON petricore gave
# is compared across the backends: it must be the same, byte for byte
# (README, "Other stores than Prometheus", says where VictoriaMetrics answers
# differently and how petricore copes).
#
# Usage: prometheus_analysis_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 with "SKIPPED: <why>" when
# prometheus, promtool, curl, jq or python3 are missing. Without
# victoria-metrics only the Prometheus checks run, and a line "# skipped
# victoriametrics: <why>" says so. KEEP=1 keeps the temp dir.
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$(dirname "$0")/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/victoriametrics.sh
source "$(dirname "$0")/../../scripts/lib/victoriametrics.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/serve.sh
source "$(dirname "$0")/../../scripts/lib/serve.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"

# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
why=$(prom_unavailable promtool jq python3)
[ -z "$why" ] || skip "$why"
"$PETRICORE" report --help 2>/dev/null | grep -q -- --accounting || skip "$PETRICORE has no report subcommand (with --accounting) yet"

loopback_without_proxy


T=$(mktemp -d /tmp/petricore-promtest.XXXXXX) || bail "create a temp dir"
cleanup() {
  stop_pid "${SERVE_PID:-}"
  prom_stop
  vm_stop
  pushgateway_stop
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the data: two jobs, a 1-hour window ending 3 hours ago or more (older
# than any head block; promtool cuts blocks at 2-hour boundaries). Its ends
# are on multiples of 300 s, the edges of the coarse windows the jobs_info
# accounting counts samples in (30-day lookback): a sample on a window's
# edge is where Prometheus 2 (a range includes its left edge) and
# VictoriaMetrics (it does not) would differ.
JOB_A=$(random_job_id)
JOB_B=$((JOB_A + 1))
END=$(($(prom_backfill_end) / 300 * 300))
START=$((END - 3600))

prom_backfill_synthetic "$T/data.om" "$T/tsdb" "$JOB_A" "$JOB_B" "$START" "$END" || bail "backfill $T/data.om with promtool"
ok "promtool backfilled $(grep -vc '^#' "$T/data.om") samples of jobs $JOB_A and $JOB_B"
# Six short jobs of carol (lib/edge_jobs.py): samples on and off the window
# edges, sparse, dense and with a gap, where the accounting's timestamp()
# subqueries must still find the first and last sample.
JOB_E=$((JOB_A + 10))
EDGE_JOBS=$(seq -s ' ' "$JOB_E" $((JOB_E + 5)))
python3 "$(dirname "$0")/../../scripts/lib/edge_jobs.py" "$JOB_E" "$END" >"$T/edges.om" ||
  bail "lib/edge_jobs.py writes $T/edges.om"
prom_backfill "$T/edges.om" "$T/tsdb" || bail "backfill $T/edges.om with promtool"
ok "promtool backfilled $(grep -vc '^#' "$T/edges.om") samples of carol's jobs $JOB_E..$((JOB_E + 5))"
samples=$(($(grep -vc '^#' "$T/data.om") + $(grep -vc '^#' "$T/edges.om")))
# edge_sample JOB min|max: the job's first or last jobs_info sample time in edges.om.
edge_sample() {
  awk -v job="slurm_job=\"$1\"" -v which="$2" '$1 ~ /^jobs_info\{/ && index($1, job) {
    t = $NF + 0; if (n++ == 0 || (which == "min" ? t < v : t > v)) v = t } END { print v }' "$T/edges.om"
}

# --- the backends, each holding the data of $T/data.om
# A running job too, the way a site feeds both: a Pushgateway that each store
# scrapes every 5 s (Prometheus from its config, VictoriaMetrics from
# -promscrape.config with the same scrape_configs).
JOB_R=$((JOB_A + 20))
pgw_why=$(prom_unavailable prometheus-pushgateway)
if [ -n "$pgw_why" ]; then
  echo "# skipped the running job: $pgw_why"
  prom_start "$T" "$T/tsdb" || bail "start prometheus over the backfilled TSDB"
else
  pushgateway_start "$T" || bail "start prometheus-pushgateway"
  pushed=$(date +%s)
  curl -sf --noproxy '*' --max-time 5 --data-binary @- "$PGW_URL/metrics/job/petricore/instance/live1" <<EOF ||
# TYPE jobs_info gauge
jobs_info{slurm_job="$JOB_R",user="dave",uid="1004",account="live"} 1
# TYPE jobs_cpus_allocated gauge
jobs_cpus_allocated{slurm_job="$JOB_R"} 4
# TYPE jobs_memory_limit_mb gauge
jobs_memory_limit_mb{slurm_job="$JOB_R"} 1000
# TYPE jobs_cpu_percent gauge
jobs_cpu_percent{slurm_job="$JOB_R"} 250
EOF
    bail "push running job $JOB_R to the pushgateway"
  prom_pushgateway_config "$T/prometheus.yml" "127.0.0.1:$PGW_PORT" 5s
  # VictoriaMetrics refuses the keys of Prometheus's config it has no use for.
  mkdir -p "$T/vm" && grep -v 'evaluation_interval' "$T/prometheus.yml" >"$T/vm/scrape.yml"
  prom_start "$T" "$T/tsdb" "$T/prometheus.yml" || bail "start prometheus over the backfilled TSDB"
fi
ok "prometheus ready on $PROM_URL (pid $PROM_PID)"
backends=(prometheus)
vm_why=$(vm_unavailable)
if [ -n "$vm_why" ]; then
  echo "# skipped victoriametrics: $vm_why"
else
  # -search.latencyOffset=1s, as the README asks of a site: a range query's
  # last 30 s stay hidden otherwise, nocache=1 or not (victoria-metrics 1.112),
  # and the running job is looked at within 30 s of its first scrape when
  # this suite runs fast.
  vm_start "$T/vm" -search.latencyOffset=1s ${PGW_PID:+"-promscrape.config=$T/vm/scrape.yml"} ||
    bail "start victoria-metrics"
  ok "victoria-metrics ready on $VM_URL (pid $VM_PID)"
  vm_import_openmetrics "$T/data.om" || bail "import $T/data.om into victoria-metrics"
  vm_import_openmetrics "$T/edges.om" || bail "import $T/edges.om into victoria-metrics"
  backends+=(victoriametrics)
fi

backend_url() { if [ "$1" = prometheus ]; then echo "$PROM_URL"; else echo "$VM_URL"; fi; }
# api BACKEND PATH [CURL ARGS...]: the backend's own API, body on stdout.
api() { curl -sf --max-time 2 --noproxy '*' "$(backend_url "$1")$2" "${@:3}"; }

# The blocks are loaded at start and the import is flushed: the data must be
# queryable right away, every sample of the file in each backend.
for backend in "${backends[@]}"; do
  n=$(api "$backend" /api/v1/query --data-urlencode "query=count(count_over_time(jobs_cpu_percent{slurm_job=\"$JOB_A\"}[2h]))" \
    --data-urlencode "time=$END" | jq -r '.data.result[0].value[1]')
  [ "$n" = 4 ] || bail "[$backend] the loaded job is queryable (count of jobs_cpu_percent series: $n, expected 4)"
  # The raw samples (a range vector), counted here: count_over_time drops
  # the metric names and Prometheus then refuses the duplicate label sets.
  n=$(api "$backend" /api/v1/query --data-urlencode 'query={__name__=~".+"}[2h]' \
    --data-urlencode "time=$END" | jq -r '[.data.result[].values | length] | add')
  check "[$backend] holds the $samples samples of data.om and edges.om (got $n)" test "$n" = "$samples"
done

# The running job: three scrapes in each store before it is looked at (up
# to 60 s; a store that has none by then fails its checks below), of
# jobs_info and of jobs_cpu_percent, its max CPU (seen once: VictoriaMetrics
# had jobs_info's and not yet the CPU's).
if [ -n "${PGW_PID:-}" ]; then
  for backend in "${backends[@]}"; do
    for _ in $(seq 1 600); do
      scraped=yes
      for metric in jobs_info jobs_cpu_percent; do
        n=$(api "$backend" /api/v1/query --data-urlencode "query=count_over_time($metric{slurm_job=\"$JOB_R\"}[5m])" |
          jq -r '.data.result[0].value[1] // 0')
        [ "$n" -ge 3 ] 2>/dev/null || scraped=no
      done
      [ "$scraped" = yes ] && break
      sleep 0.1
    done
  done
fi

# expect DESCRIPTION JQ-FILTER EXPECTED: the filter's raw output on $JSON
# equals EXPECTED.
expect() {
  local got
  got=$(jq -c -r "$2" "$JSON" 2>&1)
  if [ "$got" = "$3" ]; then ok "[$backend] $1: $3"; else not_ok "[$backend] $1: got '$got', expected '$3'"; fi
}
# near DESCRIPTION JQ-FILTER EXPECTED [TOLERANCE]: numbers within TOLERANCE (0.01).
near() {
  local got
  got=$(jq -r "$2" "$JSON" 2>&1)
  if awk -v g="$got" -v e="$3" -v t="${4:-0.01}" 'BEGIN { d = g - e; if (d < 0) d = -d; exit !(g ~ /^-?[0-9.eE+-]+$/ && d <= t) }'; then
    ok "[$backend] $1: $got"
  else
    not_ok "[$backend] $1: got '$got', expected $3 (± ${4:-0.01})"
  fi
}
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }

# checks_of BACKEND: every check of one backend; its files go to $T/BACKEND/.
checks_of() {
  backend=$1
  local url dir rc got requests
  url=$(backend_url "$backend")
  dir=$T/$backend
  mkdir -p "$dir"
  report() {
    "$PETRICORE" --log-level "${LOG_LEVEL:-warning}" report "$@" --prometheus "$url" --accounting prometheus
  }

  # --- job A
  LOG_LEVEL=debug report "$JOB_A" --json >"$dir/a.json" 2>"$dir/a.err"
  rc=$?
  if [ "$rc" = 0 ] && jq -e . "$dir/a.json" >/dev/null 2>&1; then
    ok "[$backend] report $JOB_A --json exits 0 with JSON"
  else
    not_ok "[$backend] report $JOB_A --json exits 0 with JSON (exit $rc: $(head -c 300 "$dir/a.err"))"
    return
  fi
  JSON=$dir/a.json
  expect "jobid" '.jobid' "$JOB_A"
  expect "username from jobs_info" '.username' alice
  expect "sponsor from jobs_info" '.sponsor' research
  expect "state of a job whose series ended" '.state' COMPLETED
  expect "start = first sample" '.start' "$(iso "$START")"
  expect "end = last sample" '.end' "$(iso "$END")"
  expect "runtime" '.runtime' "01:00:00"
  expect "alloc_cpu summed over 4 nodes" '.alloc_tres.alloc_cpu' 16
  expect "alloc_mem summed over 4 nodes" '.alloc_tres.alloc_mem' 32000
  expect "alloc_nodes as Slurm prints it" '.alloc_tres.alloc_nodes' 'node[1-4]'
  near "cpu avg = CPU time over runtime (18720 s / 3600 s, as seff)" '.cpu.avg_usage_job.usage' 520
  near "cpu max summed over nodes" '.cpu.max_usage_job.usage' 600
  expect "lowest expected usage = 80 x 16" '.cpu.avg_usage_job.lowest_expected_usage' 1280
  near "cpu time total" '.cpu.time_total.time' 18720
  near "user time" '.cpu.user_time.time' 17784
  near "system time" '.cpu.system_time.time' 936
  expect "16 time_core entries" '.cpu.time_core | length' 16
  expect "time_core names <node>_core_<n>" '[.cpu.time_core[].core] | sort | .[0:5] | join(",")' \
    'node1_core_0,node1_core_1,node1_core_2,node1_core_3,node2_core_0'
  near "node4_core_3 time" '.cpu.time_core[] | select(.core == "node4_core_3") | .time' 1215
  near "time_core percent_of_total sums to 100" '[.cpu.time_core[].percent_of_total] | add | . * 100 | round / 100' 100 0.05
  expect "all 16 cores used" '.cpu.used.amount' 16
  near "ram peak = sum of node peaks" '.ram.peak.amount' 11000
  near "ram used usage = 11000 / 32000" '.ram.used.usage' 0.3438 0.0001
  near "read MB summed" '.io.read.amount' 2600
  near "write MB summed" '.io.write.amount' 1000
  near "read count summed" '.io.read.count' 100000
  near "write count summed" '.io.write.count' 50000
  near "opened_files: mean of the node sum" '.io.opened_files' 100
  expect "threads: max of the node sum per name" '.threads | to_entries | map("\(.key)=\(.value)") | join(",")' \
    'bash=4,python3=32'
  expect "uses_scratch" '.uses_scratch' true
  expect "findings fired" '[.findings[].rule] | sort | join(",")' 'cpu_efficiency,memory_overallocated'
  expect "cpu_efficiency severity" '.findings[] | select(.rule == "cpu_efficiency") | .severity' critical
  near "cpu_efficiency value = 520 / 16" '.findings[] | select(.rule == "cpu_efficiency") | .value' 32.5
  expect "memory_overallocated severity" '.findings[] | select(.rule == "memory_overallocated") | .severity' warning
  expect "warning" '.warning' true

  requests=$(sed -n 's/.* \([0-9][0-9]*\) Prometheus requests.*/\1/p' "$dir/a.err" | tail -n 1)
  if [ -n "$requests" ] && [ "$requests" -le 3 ]; then
    ok "[$backend] job $JOB_A analysed with $requests requests (<= 3, accounting included)"
  else
    not_ok "[$backend] job $JOB_A analysed with <= 3 requests (log says '${requests:-nothing}'; $(grep -m1 analysed "$dir/a.err"))"
  fi

  # --- job B: the GPU join
  if report "$JOB_B" --json >"$dir/b.json" 2>"$dir/b.err"; then
    got=$(jq -r '[.findings[].rule] | join(",")' "$dir/b.json")
    case ",$got," in
      *,gpu_unused,*) ok "[$backend] gpu_unused fires for GPUs 0,1 of gpu1 at 0 % (findings: $got)" ;;
      *) not_ok "[$backend] gpu_unused fires for GPUs 0,1 of gpu1 at 0 % (findings: $got)" ;;
    esac
    got=$(jq -c '.gpu.alloc_gpu' "$dir/b.json")
    check "[$backend] gpu.alloc_gpu is {\"gpu1\":[0,1]} (got $got)" test "$got" = '{"gpu1":[0,1]}'
    got=$(jq -r '.alloc_tres.alloc_gpu' "$dir/b.json")
    check "[$backend] alloc_gpu from jobs_gpus_used is 2 (got $got)" test "$got" = 2
  else
    not_ok "[$backend] report $JOB_B --json exits 0 ($(head -c 300 "$dir/b.err"))"
  fi

  # --- an unknown job
  report "$UNKNOWN" --json >"$dir/u.out" 2>"$dir/u.err"
  rc=$?
  check "[$backend] unknown job: exit 2 and one line naming the job (exit $rc: $(head -n 1 "$dir/u.err"))" \
    test "$rc" = 2 -a "$(wc -l <"$dir/u.err")" = 1 -a ! -s "$dir/u.out"
  check "[$backend] the unknown-job message names job $UNKNOWN" grep -q "$UNKNOWN" "$dir/u.err"
  sed "s|$url|<store>|g" "$dir/u.err" >"$dir/u.msg"  # compared across the backends

  # --- carol's jobs: start and end are the first and last sample, exactly
  local job first last
  for job in $EDGE_JOBS; do
    if ! report "$job" --json >"$dir/e$job.json" 2>"$dir/e$job.err"; then
      not_ok "[$backend] report $job --json exits 0 ($(head -c 300 "$dir/e$job.err"))"
      continue
    fi
    first=$(edge_sample "$job" min)
    last=$(edge_sample "$job" max)
    JSON=$dir/e$job.json
    expect "job $job (samples $((first - END))..$((last - END)) s from END): start, end, state, CPUs" \
      '[.start, .end, .state, .alloc_tres.alloc_cpu] | join(" ")' "$(iso "$first") $(iso "$last") COMPLETED 2"
  done

  # --- the running job, as scraped from the Pushgateway: still running
  # (its last samples seen, not hidden behind a store's latency offset), its
  # start a sample of this run's, its allocation and owner from jobs_info.
  if [ -n "${PGW_PID:-}" ]; then
    if report "$JOB_R" --json >"$dir/r.json" 2>"$dir/r.err"; then
      JSON=$dir/r.json
      expect "running job $JOB_R: state, end, owner, CPUs, memory, max CPU" \
        '[.state, .end, .username, .alloc_tres.alloc_cpu, .alloc_tres.alloc_mem, .cpu.max_usage_job.usage] | map(tostring) | join(" ")' \
        "RUNNING null dave 4 1000 250"
      got=$(jq -r '.start | fromdateiso8601' "$dir/r.json")
      check "[$backend] running job $JOB_R started at a scrape after the push ($(iso "$pushed") <= $(iso "$got") <= now)" \
        test "$got" -ge "$pushed" -a "$got" -le "$(date +%s)"
    else
      not_ok "[$backend] report $JOB_R --json exits 0 ($(head -c 300 "$dir/r.err"))"
    fi
  fi

  # --- serve over the same backend: the job's usage JSON is the report's,
  # and alice's page lists job A (jobs_of_user's range query).
  if serve_start "$dir/serve.log" --prometheus "$url" --accounting prometheus; then
    got=$(curl -s --noproxy '*' -o "$dir/usage.json" -w '%{http_code}' "$SERVE_URL/api/v1/jobs/$JOB_A/usage")
    if [ "$got" = 200 ] && [ "$(jq -cS . "$dir/usage.json")" = "$(jq -cS . "$dir/a.json")" ]; then
      ok "[$backend] serve: /api/v1/jobs/$JOB_A/usage is the report's JSON"
    else
      not_ok "[$backend] serve: /api/v1/jobs/$JOB_A/usage is the report's JSON (HTTP $got: $(head -c 200 "$dir/usage.json"))"
    fi
    got=$(curl -s --noproxy '*' -o "$dir/alice.json" -w '%{http_code}' "$SERVE_URL/api/v1/users/alice")
    JSON=$dir/alice.json
    check "[$backend] serve: /api/v1/users/alice answers 200 (got $got)" test "$got" = 200
    expect "alice's jobs" '[.jobs[].id] | join(",")' "$JOB_A"
    expect "alice's job state" '.jobs[0].state' COMPLETED
    expect "alice's cpu efficiency" '.summary.cpu_efficiency.mean' 32.5
    got=$(curl -s --noproxy '*' -o "$dir/carol.json" -w '%{http_code}' "$SERVE_URL/api/v1/users/carol")
    JSON=$dir/carol.json
    expect "carol's jobs (HTTP $got)" '[.jobs[].id] | sort | join(" ")' "$EDGE_JOBS"
    stop_pid "$SERVE_PID"
    SERVE_PID=
  else
    not_ok "[$backend] serve over $url gets ready ($(tail -n 2 "$dir/serve.log"))"
  fi
}

UNKNOWN=$((JOB_A + 7))
for backend in "${backends[@]}"; do checks_of "$backend"; done

# --- the same answers from every backend, byte for byte
if [ ${#backends[@]} -gt 1 ]; then
  for file in a.json b.json u.msg usage.json alice.json carol.json $(for job in $EDGE_JOBS; do echo "e$job.json"; done); do
    if cmp -s "$T/prometheus/$file" "$T/victoriametrics/$file"; then
      ok "[prometheus = victoriametrics] $file is the same from both"
    else
      not_ok "[prometheus = victoriametrics] $file is the same from both: $(diff <(jq -S . "$T/prometheus/$file" 2>/dev/null ||
        cat "$T/prometheus/$file") <(jq -S . "$T/victoriametrics/$file" 2>/dev/null || cat "$T/victoriametrics/$file") | head -n 6 | tr '\n' ' ')"
    fi
  done
fi

# --- a store that is down (no backend: one check)
DOWN=http://127.0.0.1:$(free_ports 1)
"$PETRICORE" report "$JOB_A" --json --prometheus "$DOWN" --accounting prometheus >"$T/d.out" 2>"$T/d.err"
rc=$?
check "Prometheus down: exit 1 and one line naming $DOWN (exit $rc: $(head -n 1 "$T/d.err"))" \
  test "$rc" = 1 -a "$(wc -l <"$T/d.err")" = 1 -a ! -s "$T/d.out"
check "the Prometheus-down message names $DOWN" grep -qF "$DOWN" "$T/d.err"

summary
[ "$failed" = 0 ]
