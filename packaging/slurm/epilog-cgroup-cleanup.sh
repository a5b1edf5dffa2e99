#!/bin/sh
# Slurm Epilog fragment (cgroup/v1): removes the cgroup directories Slurm
# left behind for the job that just ended. Call it from the node's Epilog
# script (slurm.conf: Epilog=/etc/slurm/epilog.d/*, or from an existing
# Epilog) as
#   /usr/share/doc/petricore/slurm/epilog-cgroup-cleanup.sh
# It runs as root (SlurmdUser) with SLURM_JOB_ID and SLURM_JOB_UID set.
#
# Only rmdir is used, deepest first (task_*, then step_*, then job_*):
# the kernel refuses to remove a cgroup that still has processes or child
# cgroups, so a job whose processes are still exiting is left alone and
# nothing else can be removed by mistake. The uid_<N> directories are kept:
# another job of the same user may be starting in them.
#
# It always exits 0: an Epilog that fails drains the node.
#
# PETRICORE_CGROUP_ROOT (default /sys/fs/cgroup) is for testing.
root=${PETRICORE_CGROUP_ROOT:-/sys/fs/cgroup}
job=${SLURM_JOB_ID:-}
uid=${SLURM_JOB_UID:-}
case $job in '' | *[!0-9]*) exit 0 ;; esac
case $uid in '' | *[!0-9]*) uid='*' ;; esac

# Controllers (cpuacct, memory, cpuset, freezer, devices, ...; cpu,cpuacct
# and its symlinks are visited more than once, which is harmless), and the
# Slurm root in each: slurm, or slurm_<node> (Debian's build, and several
# slurmd per host). $uid is digits or the glob *, unquoted on purpose.
# shellcheck disable=SC2231
for jobdir in "$root"/*/slurm/uid_$uid/job_"$job" "$root"/*/slurm_*/uid_$uid/job_"$job"; do
  [ -d "$jobdir" ] || continue
  for dir in "$jobdir"/step_*/task_*; do
    [ -d "$dir" ] && rmdir "$dir" 2>/dev/null
  done
  for dir in "$jobdir"/step_*; do
    [ -d "$dir" ] && rmdir "$dir" 2>/dev/null
  done
  rmdir "$jobdir" 2>/dev/null
done
exit 0
