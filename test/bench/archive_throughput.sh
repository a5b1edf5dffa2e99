#!/bin/bash
# Archiving throughput: how many finished jobs a second `petricore archive`
# analyses and stores from a local Prometheus (Debian's 2.42) that holds
# them. JOBS synthetic 1-node jobs (4 CPUs, 16 series each: jobs_info, the
# allocation, CPU percent and times per core, memory, I/O), 30 minutes each,
# sampled every 15 s, ending one after another over the last hours, are
# backfilled with promtool; then `petricore archive --since` stores them all
# into a fresh SQLite file, with the jobs_info accounting (two Prometheus
# requests a job to look it up whole, one range query for its series). The
# figure to meet: >= 50 jobs/s. A second run over the same window shows the
# cost of the "archived already" answers alone.
#
# Usage: test/bench/archive_throughput.sh BUILD-DIR | PETRICORE-BINARY
# Knobs: JOBS=300, BATCH=100, KEEP=1 (keep the temp dir). Prints figures;
# never fails on a timing. Exit 77 "SKIPPED: <why>" without prometheus,
# promtool or python3.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$HERE/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$HERE/../../scripts/lib/harness.sh"

ARG=${1:-}
[ -n "$ARG" ] || { echo "usage: $0 BUILD-DIR | PETRICORE-BINARY" >&2; exit 2; }
if [ -d "$ARG" ]; then PETRICORE=$ARG/src/petricore; else PETRICORE=$ARG; fi
[ -x "$PETRICORE" ] || { echo "not executable: $PETRICORE" >&2; exit 2; }
JOBS=${JOBS:-300}
BATCH=${BATCH:-100}
skip() { echo "SKIPPED: $*"; exit 77; }
why=$(prom_unavailable promtool python3)
[ -z "$why" ] || skip "$why"
loopback_without_proxy

T=$(mktemp -d /tmp/petricore-archbench.XXXXXX) || exit 1
cleanup() { prom_stop; remove_temp_dir "$T"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

FIRST=$(random_job_id)
END=$(prom_backfill_end)
python3 - "$FIRST" "$JOBS" "$END" >"$T/jobs.om" <<'PY'
import sys
first, jobs, end = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
families = {}
def series(name, labels, points):
    families.setdefault(name, []).append((labels, points))
for n in range(jobs):
    job = str(first + n)
    stop = end - 15 * (jobs - 1 - n)   # one job ends every 15 s
    start = stop - 1800
    times = list(range(start, stop + 1, 15))
    node = {"instance": f"node{n % 50}", "slurm_job": job}
    user = f"user{n % 40}"
    series("jobs_info", dict(node, user=user, uid=str(2000 + n % 40), account=f"acct{n % 7}"), [(t, 1) for t in times])
    series("jobs_cpus_allocated", node, [(t, 4) for t in times])
    series("jobs_memory_limit_mb", node, [(t, 16000) for t in times])
    pct = 100 + (n % 5) * 60
    series("jobs_cpu_percent", node, [(t, pct) for t in times])
    series("jobs_cpu_time_total", node, [(t, pct / 100 * (t - start)) for t in times])
    for core in range(4):
        series("jobs_cpu_time_core", dict(node, core=str(core)), [(t, pct / 400 * (t - start)) for t in times])
    series("jobs_user_time", node, [(t, 0.9 * pct / 100 * (t - start)) for t in times])
    series("jobs_system_time", node, [(t, 0.1 * pct / 100 * (t - start)) for t in times])
    series("jobs_rss", node, [(t, 1000 + 3 * (t - start) / 15) for t in times])
    series("jobs_memory_peak_mb", node, [(t, 1200 + 3 * (t - start) / 15) for t in times])
    series("jobs_read_mb", node, [(t, (t - start) / 10) for t in times])
    series("jobs_write_mb", node, [(t, (t - start) / 20) for t in times])
for name, members in families.items():
    print(f"# TYPE {name} gauge")
    for labels, points in members:
        ls = ",".join(f'{k}="{v}"' for k, v in labels.items())
        for t, v in points:
            print(f"{name}{{{ls}}} {v} {t}")
print("# EOF")
PY
prom_backfill "$T/jobs.om" "$T/tsdb" || exit 1
prom_start "$T" "$T/tsdb" || exit 1

SINCE=$(date -u -d "@$((END - 15 * JOBS - 60))" +%Y-%m-%dT%H:%M:%S)
UNTIL=$(date -u -d "@$((END + 60))" +%Y-%m-%dT%H:%M:%S)
run() {
  local t0 t1
  t0=$(date +%s%N)
  "$PETRICORE" archive --quiet --store sqlite --path "$T/archive.db" --cluster bench --batch "$BATCH" \
    --since "$SINCE" --until "$UNTIL" --prometheus "$PROM_URL" --accounting prometheus >"$T/out" 2>"$T/err"
  local rc=$?
  t1=$(date +%s%N)
  echo "$(((t1 - t0) / 1000000)) $rc"
}
read -r ms rc < <(run)
echo "archive --since over $JOBS jobs (batch $BATCH): $(cat "$T/out") [exit $rc]"
awk -v n="$JOBS" -v ms="$ms" 'BEGIN { printf "  %.0f ms: %.1f jobs/s (target >= 50), %.1f ms a job\n", ms, n * 1000 / ms, ms / n }'
read -r ms rc < <(run)
echo "again, all archived before: $(cat "$T/out") [exit $rc]"
awk -v n="$JOBS" -v ms="$ms" 'BEGIN { printf "  %.0f ms: %.0f jobs/s checked\n", ms, n * 1000 / ms }'
echo "archive file: $(du -k "$T/archive.db" | cut -f1) KiB for $JOBS jobs"
