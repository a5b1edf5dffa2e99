#!/usr/bin/env python3
"""Two finished Slurm jobs as the collector would have exported them, in the
OpenMetrics text format that `promtool tsdb create-blocks-from openmetrics`
backfills into a Prometheus TSDB. Used by prometheus_analysis_test.sh (which
documents the expected values) and test/bench/analysis_bench.sh.

Usage: synthetic_jobs.py JOB_A JOB_B START END > data.om
  START, END: epoch seconds, END - START a multiple of 15 (samples every 15 s).

Job A: 4 nodes node1..node4, 4 CPUs and 8000 MB each, user alice, account
  research; jobs_cpu_percent 125/130/130/135 (an instant of +20 each in the
  middle), CPU time spread evenly over 4 cores, memory peaks 2000..3500 MB,
  read 500..800 MB, write 100..400 MB, 10*i open files, python3 4 threads
  per node (8 for a while), bash 1, scratch used on node1 only.
Job B: node gpu1, 4 CPUs, 8000 MB, GPUs 0 and 1; utilization_gpu 0 for them
  (instance "gpu1.cluster:9445"), 90 for GPU 2 (not the job's) and 50 for
  GPU 0 of gpu10 (a node whose name starts the same).
"""
import sys

job_a, job_b, start, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
steps = (end - start) // 15  # 240 intervals, 241 samples
families = {}  # name -> list of (labels, [(t, v)])

def series(name, labels, values):
    families.setdefault(name, []).append((labels, values))

def over_time(f):
    return [(start + 15 * k, f(k)) for k in range(steps + 1)]

# Job A: 4 nodes.
cpu = {1: 125, 2: 130, 3: 130, 4: 135}
peak = {1: 2000, 2: 2500, 3: 3000, 4: 3500}
for i in range(1, 5):
    node = {"instance": f"node{i}", "slurm_job": job_a}
    c = cpu[i]
    pct = lambda k, c=c: c + (20 if k == steps // 2 else 0)
    series("jobs_info", dict(node, user="alice", uid="1001", account="research"), over_time(lambda k: 1))
    series("jobs_cpus_allocated", node, over_time(lambda k: 4))
    series("jobs_memory_limit_mb", node, over_time(lambda k: 8000))
    series("jobs_cpu_percent", node, over_time(pct))
    series("jobs_cpu_percent_per_core", node, over_time(lambda k, pct=pct: pct(k) / 4))
    # CPU seconds grow at c % of one CPU, spread evenly over 4 cores.
    seconds = lambda k, c=c: c / 100 * 15 * k
    for core in range(4):
        series("jobs_cpu_time_core", dict(node, core=str(core)), over_time(lambda k, s=seconds: s(k) / 4))
    series("jobs_cpu_time_total", node, over_time(seconds))
    series("jobs_user_time", node, over_time(lambda k, s=seconds: 0.95 * s(k)))
    series("jobs_system_time", node, over_time(lambda k, s=seconds: 0.05 * s(k)))
    # Memory ramps up to the peak over 15 minutes, holds, falls to half.
    p = peak[i]
    rss = lambda k, p=p: p * min(1, k / 60) if k <= 180 else p / 2
    series("jobs_rss", node, over_time(rss))
    series("jobs_memory_peak_mb", node, over_time(lambda k, p=p: p * min(1, k / 60)))
    series("jobs_spawned_processes", node, over_time(lambda k: 5))
    series("jobs_opened_files", node, over_time(lambda k, i=i: 10 * i))
    series("jobs_thread_count", dict(node, proc_name="python3"), over_time(lambda k: 8 if 100 <= k <= 110 else 4))
    series("jobs_thread_count", dict(node, proc_name="bash"), over_time(lambda k: 1))
    series("jobs_uses_scratch", node, over_time(lambda k, i=i: 1 if i == 1 and k >= 10 else 0))
    for name, final in (("jobs_read_mb", 400 + 100 * i), ("jobs_write_mb", 100 * i),
                        ("jobs_read_count", 10000 * i), ("jobs_write_count", 5000 * i)):
        series(name, node, over_time(lambda k, final=final: final * k / steps))

# Job B: one GPU node, GPUs 0 and 1.
node = {"instance": "gpu1", "slurm_job": job_b}
series("jobs_info", dict(node, user="bob", uid="1002", account="physics"), over_time(lambda k: 1))
series("jobs_cpus_allocated", node, over_time(lambda k: 4))
series("jobs_memory_limit_mb", node, over_time(lambda k: 8000))
series("jobs_cpu_percent", node, over_time(lambda k: 380))
series("jobs_rss", node, over_time(lambda k: 7000))
for gpu in ("0", "1"):
    series("jobs_gpus_used", dict(node, gpuid=gpu), over_time(lambda k: 1))
for instance, gpu, util in (("gpu1.cluster:9445", "0", 0), ("gpu1.cluster:9445", "1", 0),
                            ("gpu1.cluster:9445", "2", 90), ("gpu10.cluster:9445", "0", 50)):
    series("utilization_gpu", {"instance": instance, "gpu": gpu}, over_time(lambda k, u=util: u))

def text(v):
    return repr(float(v)) if isinstance(v, float) else str(v)

for name, members in families.items():
    print(f"# TYPE {name} gauge")
    for labels, values in members:
        ls = ",".join(f'{k}="{v}"' for k, v in labels.items())
        for t, v in values:
            print(f"{name}{{{ls}}} {text(v)} {t}")
print("# EOF")
