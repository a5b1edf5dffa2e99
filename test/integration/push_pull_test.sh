#!/bin/bash
# Functions are called through wait_until and the EXIT trap:
# shellcheck disable=SC2317
# End-to-end test of `petricore collect` with every sink at once, against a
# REAL Pushgateway and Prometheus (Debian's prometheus-pushgateway and
# prometheus) and a REAL Slurm-layout job cgroup on this host's cgroup v1
# mounts (needs root):
#
#   <ctrl>/slurm_itest/uid_0/job_<id>/step_batch/task_0   (cpuacct, memory)
#   <ctrl>/slurm_itest/uid_0/job_<id>/step_batch          (cpuset, freezer)
#
# holding one `sleep 600`. Checks:
#   (a) Prometheus, scraping the Pushgateway with honor_labels, returns
#       jobs_cpu_time_total{slurm_job="<id>"} with instance="itestnode";
#   (b) the pull endpoint shows jobs_spawned_processes{...} 1 for the job;
#   (c) the textfile holds the job's series;
#   (d) once the job's process and cgroups are gone (collect runs with
#       --interval 5 --linger 4, the watch at its 1 s default): a PUT after
#       the end still carries the job's series, and the pull endpoint and the
#       textfile still show them; they leave the Pushgateway only after the
#       linger time;
#   (e) on SIGTERM collect deletes its push group and exits 0.
#
# Usage: push_pull_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 (skipped) when the host cannot run
# it. Everything it starts or creates is stopped/removed by PID/path in the
# EXIT trap. The job cgroups come from scripts/lib/slurm-cgroup.sh.
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/slurm-cgroup.sh
source "$(dirname "$0")/../../scripts/lib/slurm-cgroup.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"

# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$(dirname "$0")/../../scripts/lib/prometheus.sh"

why=$(slurm_cgroup_unavailable)
[ -z "$why" ] || skip "$why"
CG=$SLURM_CGROUP_BASE
why=$(prom_unavailable prometheus-pushgateway)
[ -z "$why" ] || skip "$why"

# Loopback only: never through a proxy from the environment.
loopback_without_proxy


T=$(mktemp -d /tmp/petricore-itest.XXXXXX) || bail "create a temp dir"
PGW_PID='' PROM_PID='' COLLECT_PID='' SLEEP_PID=''
JOB=$(random_job_id)
BASE=slurm_itest
JOB_DIR=$BASE/uid_0/job_$JOB


# The job's cgroups in every controller; the shared slurm_itest/uid_0 levels
# only if nothing else (another run) lives there.
remove_cgroups() { slurm_remove_job "$BASE" 0 "$JOB"; }

cleanup() {
  stop_pid "$COLLECT_PID"
  [ -n "$SLEEP_PID" ] && kill -KILL "$SLEEP_PID" 2>/dev/null && wait "$SLEEP_PID" 2>/dev/null
  remove_cgroups
  prom_stop
  pushgateway_stop
  [ "$failed" -gt 0 ] && tail_logs 20 "$T/collect.log"
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

read -r PGW_PORT PROM_PORT PULL_PORT <<<"$(free_ports 3)"
[ -n "${PULL_PORT:-}" ] || bail "find three free ports"
PGW=http://127.0.0.1:$PGW_PORT
PROM=http://127.0.0.1:$PROM_PORT
PULL=http://127.0.0.1:$PULL_PORT

get() { curl -sf --max-time 2 "$@"; }

# wait_until SECONDS COMMAND...: polls every 0.2 s; true once COMMAND succeeds.
wait_until() {
  local limit=$1 end
  shift
  end=$(( $(date +%s%N) + limit * 1000000000 ))
  while :; do
    "$@" && return 0
    [ "$(date +%s%N)" -ge "$end" ] && return 1
    sleep 0.2
  done
}

# --- the monitoring stack
pushgateway_start "$T" "$PGW_PORT" || bail "pushgateway ready on $PGW"
prom_pushgateway_config "$T/prometheus.yml" "127.0.0.1:$PGW_PORT" 1s
prom_start "$T" "$T/prom-data" "$T/prometheus.yml" || bail "prometheus ready on $PROM"

# --- the job: Slurm v1 layout (all of the parent's CPUs, no memory limit),
# one process
JOB_CPUS='' JOB_MEMORY_LIMIT='' slurm_make_job "$BASE" 0 "$JOB" batch ||
  bail "create the job cgroups under $CG/*/$JOB_DIR"
sleep 600 >/dev/null 2>&1 &
SLEEP_PID=$!
slurm_add_pid "$BASE" 0 "$JOB" batch "$SLEEP_PID" ||
  bail "move the job's process into its step under $CG/*/$JOB_DIR/step_batch"

# --- the collector, with all three sinks
"$PETRICORE" collect --push "$PGW" --interval 5 --linger 4 --instance itestnode \
  --cgroup-root "$CG" --proc-root /proc \
  --listen "127.0.0.1:$PULL_PORT" --textfile "$T/jobs.prom" \
  </dev/null >"$T/collect.log" 2>&1 &
COLLECT_PID=$!
echo "# job $JOB, pushgateway $PGW, prometheus $PROM, pull $PULL, collect pid $COLLECT_PID"

# (a) pushed, scraped and queryable, with the pushed instance label
prom_has_job() {
  local r
  r=$(get "$PROM/api/v1/query" --data-urlencode "query=jobs_cpu_time_total{slurm_job=\"$JOB\"}") || return 1
  grep -q '"status":"success"' <<<"$r" &&
    grep -q "\"slurm_job\":\"$JOB\"" <<<"$r" &&
    grep -q '"instance":"itestnode"' <<<"$r"
}
if wait_until 30 prom_has_job; then
  ok "prometheus returns jobs_cpu_time_total{slurm_job=\"$JOB\"} with instance=\"itestnode\""
else
  not_ok "prometheus returns jobs_cpu_time_total{slurm_job=\"$JOB\"} with instance=\"itestnode\" within 30 s"
fi

# (b) the pull endpoint
pull_has_one_process() {
  get "$PULL/metrics" | grep '^jobs_spawned_processes{' | grep -F "slurm_job=\"$JOB\"" |
    grep -F 'instance="itestnode"' | grep -q ' 1$'
}
if wait_until 10 pull_has_one_process; then
  ok "pull endpoint shows jobs_spawned_processes{instance=\"itestnode\",slurm_job=\"$JOB\"} 1"
else
  not_ok "pull endpoint shows jobs_spawned_processes{instance=\"itestnode\",slurm_job=\"$JOB\"} 1 within 10 s"
  get "$PULL/metrics" | grep "slurm_job=\"$JOB\"" | head -n 5 | sed 's/^/#   /'
fi

# (c) the textfile
textfile_has_job() { grep -q "slurm_job=\"$JOB\"" "$T/jobs.prom" 2>/dev/null; }
if wait_until 10 textfile_has_job; then
  ok "textfile $T/jobs.prom holds the job's series"
else
  not_ok "textfile $T/jobs.prom holds the job's series within 10 s"
fi

# (d) the job ends: its final series are pushed at once and linger
pgw_has_job() { get "$PGW/metrics" | grep -q "slurm_job=\"$JOB\""; }
pgw_lacks_job() {
  local m
  m=$(get "$PGW/metrics") || return 1
  ! grep -q "slurm_job=\"$JOB\"" <<<"$m"
}
push_time() { get "$PGW/metrics" | awk '/^push_time_seconds\{/ && /instance="itestnode"/ { print $2 }'; }
pushed_since() { local now; now=$(push_time) && [ -n "$now" ] && [ "$now" != "$1" ]; }
if ! wait_until 10 pgw_has_job; then
  not_ok "pushgateway has the job's series before it ends"
else
  before=$(push_time)
  t0=$(date +%s%N)  # the job ends now
  kill -KILL "$SLEEP_PID" 2>/dev/null
  wait "$SLEEP_PID" 2>/dev/null
  SLEEP_PID=''
  remove_cgroups
  if [ -d "$CG/cpuacct/$JOB_DIR" ] || [ -d "$CG/memory/$JOB_DIR" ]; then
    not_ok "remove the job's cgroups"
  else
    if wait_until 6 pushed_since "$before" && pgw_has_job; then
      ok "a push after the job's end still carries its series ($(( ($(date +%s%N) - t0) / 1000000 )) ms after it)"
    else
      not_ok "a push after the job's end still carries its series"
    fi
    check "the pull endpoint still serves the ended job's series" eval 'get "$PULL/metrics" | grep -q "slurm_job=\"$JOB\""'
    check "the textfile still holds the ended job's series" grep -q "slurm_job=\"$JOB\"" "$T/jobs.prom"
    if wait_until 15 pgw_lacks_job; then
      ms=$(( ($(date +%s%N) - t0) / 1000000 ))
      if [ "$ms" -ge 4000 ]; then
        ok "ended job's series left the pushgateway after ${ms} ms, once the 4 s linger was over"
      else
        not_ok "ended job's series left the pushgateway after ${ms} ms, before the 4 s linger was over"
      fi
    else
      not_ok "ended job's series left the pushgateway within 15 s"
    fi
  fi
fi

# (e) SIGTERM: the push group is deleted and collect exits 0
group_series() {
  grep -E '^[a-z_:]+\{' | grep -F 'instance="itestnode"' | grep -F 'job="jobs_exporter"'
}
group_present() { get "$PGW/metrics" | group_series >/dev/null; }
group_gone() {
  local m
  m=$(get "$PGW/metrics") || return 1
  ! group_series <<<"$m" >/dev/null
}
group_was_there=0
wait_until 5 group_present && group_was_there=1
if kill -0 "$COLLECT_PID" 2>/dev/null; then
  kill -TERM "$COLLECT_PID"
  for _ in $(seq 1 150); do kill -0 "$COLLECT_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$COLLECT_PID" 2>/dev/null; then
    not_ok "collect exits within 15 s of SIGTERM"
    kill -KILL "$COLLECT_PID" 2>/dev/null
    wait "$COLLECT_PID" 2>/dev/null
  else
    wait "$COLLECT_PID"
    rc=$?
    if [ "$rc" = 0 ]; then ok "collect exits 0 on SIGTERM"; else not_ok "collect exits 0 on SIGTERM (exit $rc)"; fi
  fi
  COLLECT_PID=''
else
  wait "$COLLECT_PID"
  not_ok "collect still running before SIGTERM (it exited with $?)"
  COLLECT_PID=''
fi
# The Pushgateway answers DELETE with 202 and applies it asynchronously.
if [ "$group_was_there" = 0 ]; then
  not_ok "push group jobs_exporter/instance/itestnode is in the pushgateway before SIGTERM"
elif wait_until 3 group_gone; then
  ok "push group jobs_exporter/instance/itestnode is gone from the pushgateway"
else
  not_ok "push group jobs_exporter/instance/itestnode is gone from the pushgateway within 3 s"
fi

summary
if [ "$failed" = 0 ]; then exit 0; else exit 1; fi
