#!/usr/bin/env bash
# How soon a job's end reaches the Pushgateway (README.md, "Job ends"): a real
# Pushgateway on loopback, `petricore collect --push` at its default intervals
# (full pass every 15 s, watch every 1 s), and jobs in real v1 Slurm-layout
# cgroups (scripts/lib/slurm-cgroup.sh) running one busy process each. Per
# job: right after a full pass's PUT, kill the job's process, then either
#   empty:   leave its (now empty) cgroups in place for 2 s, then remove them
#   removed: remove its cgroups at once, as Slurm does (the job's only: its
#            parents stay, as Slurm's slurm_<node>/ does)
# and time from the kill to the Pushgateway's push_time_seconds of the node's
# group changing (the PUT that carries the job's final readings), polled
# every 10 ms. Also checks that PUT holds the job's series with a CPU time at
# least that read from the job's cgroup just before the kill.
#
#   test/bench/job_end_bench.sh [BUILD-DIR]     (default ./build; root)
#
# Knobs: ROUNDS=5 (per case). Prints figures; exits non-zero only when it
# cannot run (not root, no writable cgroup v1, no Pushgateway, no binary).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
petricore=$build/src/petricore
ROUNDS=${ROUNDS:-5}
# shellcheck source=SCRIPTDIR/../../scripts/lib/slurm-cgroup.sh
source "$here/../../scripts/lib/slurm-cgroup.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$here/../../scripts/lib/prometheus.sh"

cannot_run() { echo "job_end_bench.sh: cannot run: $1" >&2; exit 1; }
why=$(slurm_cgroup_unavailable)
[ -z "$why" ] || cannot_run "$why"
why=$(prom_unavailable prometheus-pushgateway)
[ -z "$why" ] || cannot_run "$why"
[ -x "$petricore" ] || cannot_run "$petricore not built"
command -v python3 >/dev/null || cannot_run "python3 is needed to poll the Pushgateway"

ROOT=slurm_je$$
T=$(mktemp -d /tmp/petricore-job-end.XXXXXX)
COLLECT=
cleanup() {
  exec 2>/dev/null
  [ -n "$COLLECT" ] && kill -TERM "$COLLECT" && wait "$COLLECT"
  pushgateway_stop
  slurm_remove_root "$ROOT"
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY

pushgateway_start "$T" || cannot_run "the Pushgateway did not start"
"$petricore" collect --push "$PGW_URL" --instance bench --cgroup-root "$SLURM_CGROUP_BASE" >"$T/collect.log" 2>&1 &
COLLECT=$!

echo "== job_end_bench: $(nproc) CPUs, kernel $(uname -r), Pushgateway $PGW_URL, collector at its defaults"
# One Python helper does the timing: it waits for a full pass's PUT, runs the
# shell's kill through a FIFO handshake, and polls for the next PUT.
cat >"$T/poll.py" <<'PY'
import re, sys, time, urllib.request
url, job, cpu_before = sys.argv[1], sys.argv[2], float(sys.argv[3])
def scrape():
    with urllib.request.urlopen(url + "/metrics", timeout=2) as r:
        return r.read().decode()
def push_time(text):
    m = re.search(r'^push_time_seconds\{instance="bench",job="jobs_exporter"\} (\S+)', text, re.M)
    return float(m.group(1)) if m else None
start = float(sys.argv[4])  # when the process was killed (CLOCK_REALTIME)
first = float(sys.argv[5])  # the push_time before the kill
while time.time() < start + 10:
    text = scrape()
    t = push_time(text)
    if t is not None and t > first:
        seen = time.time()
        m = re.search(r'^jobs_cpu_time_total\{instance="bench",job="jobs_exporter",slurm_job="%s"\} (\S+)' % job, text, re.M)
        cpu = float(m.group(1)) if m else float("nan")
        state = "missing" if not m else ("at least the last read before the kill" if cpu >= cpu_before - 1e-6 else "BELOW the last read before the kill")
        print("%.3f %.3f %s" % (seen - start, cpu, state))
        sys.exit(0)
    time.sleep(0.01)
print("timeout nan missing")
PY

push_time() {
  curl -s "$PGW_URL/metrics" | awk '/^push_time_seconds\{instance="bench"/ { print $2 }'
}
# Waits for the next full pass's PUT and prints its push_time.
after_next_put() {
  local before now
  before=$(push_time)
  for _ in $(seq 2000); do
    now=$(push_time)
    if [ -n "$now" ] && [ "$now" != "$before" ]; then echo "$now"; return 0; fi
    sleep 0.01
  done
  return 1
}

declare -A LAT=()
job=$((RANDOM + 100000))
for case in empty removed; do
  for round in $(seq "$ROUNDS"); do
    job=$((job + 1))
    slurm_make_job "$ROOT" 0 "$job" batch || cannot_run "cannot make job cgroups"
    slurm_spawn "$ROOT" 0 "$job" batch sh -c 'while :; do :; done'
    pid=$SLURM_SPAWNED_PID
    # Seen by the watch (a start PUT), then by a full pass.
    after_next_put >/dev/null || cannot_run "no PUT from the collector: $(tail -3 "$T/collect.log")"
    first=$(after_next_put) || cannot_run "no full-pass PUT: $(tail -3 "$T/collect.log")"
    # Well clear of that pass, at a random point between two watches.
    sleep "2.$(printf '%03d' $((RANDOM % 1000)))"
    cpu_dir=$SLURM_CGROUP_BASE/cpuacct/$ROOT/uid_0/job_$job
    cpu_before=$(awk '{ printf "%.9f", $1 / 1e9 }' "$cpu_dir/cpuacct.usage")
    killed=$(date +%s.%N)
    kill -KILL "$pid"
    if [ "$case" = removed ]; then
      for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
        find "$SLURM_CGROUP_BASE/$c/$ROOT/uid_0/job_$job" -depth -type d -exec rmdir {} + 2>/dev/null
      done
      python3 "$T/poll.py" "$PGW_URL" "$job" "$cpu_before" "$killed" "$first" >"$T/r"
    else
      python3 "$T/poll.py" "$PGW_URL" "$job" "$cpu_before" "$killed" "$first" >"$T/r"
      slurm_remove_job "$ROOT" 0 "$job"
    fi
    read -r latency cpu state <"$T/r"
    [ "$case" = removed ] && slurm_remove_job "$ROOT" 0 "$job"
    printf '  %-8s round %d: final PUT %s s after the kill; job %s CPU time %s s, read from its cgroup before the kill %s s: %s\n' \
      "$case" "$round" "$latency" "$job" "$cpu" "$cpu_before" "$state"
    LAT[$case]="${LAT[$case]:-} $latency"
  done
done
echo
for case in empty removed; do
  # shellcheck disable=SC2086
  printf '%s\n' ${LAT[$case]} | sort -n | awk -v c="$case" '
    { v[NR] = $1 } END { printf "== %-8s kill -> final sample on the Pushgateway: min %.3f s, median %.3f s, max %.3f s (%d rounds; target <= 1.5 s)\n", c, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
done
kill -0 "$COLLECT" 2>/dev/null || echo "job_end_bench.sh: the collector died: $(tail -3 "$T/collect.log")" >&2
echo "== done"
