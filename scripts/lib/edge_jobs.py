#!/usr/bin/env python3
"""Six short finished jobs of user carol whose samples sit where the jobs_info
accounting's queries are easiest to get wrong (window edges, gaps, sparse or
dense samples), in the OpenMetrics text format of synthetic_jobs.py. Used by
prometheus_analysis_test.sh, which checks that every store reports each
job's first and last sample as its start and end.

Usage: edge_jobs.py FIRST_JOB_ID END > edges.om
  END: epoch seconds on a multiple of 300 (the coarse window of the
  accounting's 30-day lookback), at least 3 hours ago. Job FIRST_JOB_ID + k
  is line k of JOBS below; each has jobs_info, jobs_cpus_allocated (2) and
  jobs_cpu_percent (150) on node edge1 at the sample times given.
"""
import sys

first_id, end = int(sys.argv[1]), int(sys.argv[2])
JOBS = [
    [end - 3000],                                    # one sample, on a window edge
    [end - 2999],                                    # one sample, 1 s past an edge
    [end - 2893 + 60 * k for k in range(21)],        # every 60 s, off the edges
    [end - 3600 + 15 * k for k in range(40)]         # every 15 s, a 10-minute gap,
    + [end - 3600 + 1200 + 15 * k for k in range(40)],  # then on again
    [end - 3497 + 120 * k for k in range(16)],       # every 120 s
    [end - 2000, end - 1999],                        # two samples 1 s apart
]

lines = {"jobs_info": [], "jobs_cpus_allocated": [], "jobs_cpu_percent": []}
for k, times in enumerate(JOBS):
    job = first_id + k
    node = f'instance="edge1",slurm_job="{job}"'
    for t in times:
        lines["jobs_info"].append(f'jobs_info{{{node},user="carol",uid="1003",account="edges"}} 1 {t}')
        lines["jobs_cpus_allocated"].append(f"jobs_cpus_allocated{{{node}}} 2 {t}")
        lines["jobs_cpu_percent"].append(f"jobs_cpu_percent{{{node}}} 150 {t}")
for name, members in lines.items():
    print(f"# TYPE {name} gauge")
    print("\n".join(members))
print("# EOF")
