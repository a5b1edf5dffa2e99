# shellcheck shell=bash
# Builds job cgroups the way Slurm 22.05's cgroup/v1 plugins do, on this
# host's real v1 hierarchies, for tests, benchmarks and the demo:
#   cpuacct, memory: <root>/uid_U/job_J/step_S/task_0
#   cpuset, freezer: <root>/uid_U/job_J/step_S
# Source this file; every function takes the Slurm root name (e.g. slurm_demo).

SLURM_CGROUP_BASE=${SLURM_CGROUP_BASE:-/sys/fs/cgroup}
SLURM_CGROUP_CONTROLLERS=(cpuacct memory cpuset freezer)

# Prints why real job cgroups cannot be made here, or nothing when they can.
slurm_cgroup_unavailable() {
  [ "$(id -u)" = 0 ] || { echo "needs root to create cgroups"; return; }
  local c
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    [ -d "$SLURM_CGROUP_BASE/$c" ] || { echo "no cgroup v1 $c hierarchy at $SLURM_CGROUP_BASE/$c"; return; }
    [ -w "$SLURM_CGROUP_BASE/$c" ] || { echo "cgroup v1 $c hierarchy is not writable"; return; }
  done
}

# The leaf directory of a step in one controller.
slurm_step_dir() {  # root uid job step controller
  local d="$SLURM_CGROUP_BASE/$5/$1/uid_$2/job_$3/step_$4"
  case $5 in cpuacct|memory) d="$d/task_0" ;; esac
  echo "$d"
}

# cpuset children start empty: copy cpus and mems down every level from the
# hierarchy's root to dir, then set dir's cpus when given.
_slurm_cpuset_fill() {  # dir [cpus]
  local dir=$1 cpus=${2:-} top="$SLURM_CGROUP_BASE/cpuset" rel parent part
  rel=${dir#"$top"/}
  parent=$top
  for part in ${rel//\// }; do
    [ -n "$(cat "$parent/$part/cpuset.cpus")" ] || cat "$parent/cpuset.cpus" >"$parent/$part/cpuset.cpus"
    [ -n "$(cat "$parent/$part/cpuset.mems")" ] || cat "$parent/cpuset.mems" >"$parent/$part/cpuset.mems"
    parent=$parent/$part
  done
  if [ -n "$cpus" ]; then echo "$cpus" >"$dir/cpuset.cpus"; fi
}

# Creates a job with one step. Options via env: JOB_CPUS (e.g. 0-1),
# JOB_MEMORY_LIMIT (bytes or 512M).
slurm_make_job() {  # root uid job step
  local c d
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d=$(slurm_step_dir "$1" "$2" "$3" "$4" "$c")
    mkdir -p "$d"
    if [ "$c" = cpuset ]; then
      _slurm_cpuset_fill "$SLURM_CGROUP_BASE/cpuset/$1/uid_$2/job_$3" "${JOB_CPUS:-}"
      _slurm_cpuset_fill "$d"
    fi
  done
  if [ -n "${JOB_MEMORY_LIMIT:-}" ]; then
    echo "$JOB_MEMORY_LIMIT" > "$SLURM_CGROUP_BASE/memory/$1/uid_$2/job_$3/memory.limit_in_bytes"
  fi
}

# Moves a process into a step in every controller.
slurm_add_pid() {  # root uid job step pid
  local c
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    echo "$5" > "$(slurm_step_dir "$1" "$2" "$3" "$4" "$c")/cgroup.procs"
  done
}

# Starts a command inside a step (it joins the cgroups before exec, so even
# its first instructions are accounted) and sets SLURM_SPAWNED_PID. The
# command's output goes to $SLURM_SPAWN_LOG (default /dev/null). Call it
# directly, not in $(...), so the process stays this shell's child.
slurm_spawn() {  # root uid job step cmd...
  local root=$1 uid=$2 job=$3 step=$4 dirs="" c
  shift 4
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do dirs="$dirs $(slurm_step_dir "$root" "$uid" "$job" "$step" "$c")"; done
  # shellcheck disable=SC2016
  sh -c 'for d in $0; do echo $$ > "$d/cgroup.procs"; done; exec "$@"' "$dirs" "$@" \
    </dev/null >>"${SLURM_SPAWN_LOG:-/dev/null}" 2>&1 &
  SLURM_SPAWNED_PID=$!
  disown "$SLURM_SPAWNED_PID"
}

# Kills every process of a job and removes its cgroups, leaf first.
slurm_remove_job() {  # root uid job
  local c d pid
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d="$SLURM_CGROUP_BASE/$c/$1/uid_$2/job_$3"
    [ -d "$d" ] || continue
    for pid in $(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  done
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d="$SLURM_CGROUP_BASE/$c/$1/uid_$2/job_$3"
    [ -d "$d" ] || continue
    # A cgroup can only be removed once its processes are gone.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
      [ -d "$d" ] || break
      sleep 0.1
    done
  done
}

# Removes a whole Slurm root (all its jobs) from every controller.
slurm_remove_root() {  # root
  local c d job uid
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d="$SLURM_CGROUP_BASE/$c/$1"
    [ -d "$d" ] || continue
    for job in "$d"/uid_*/job_*; do
      [ -d "$job" ] || continue
      uid=$(basename "$(dirname "$job")"); uid=${uid#uid_}
      slurm_remove_job "$1" "$uid" "$(basename "$job" | sed 's/^job_//')"
    done
  done
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d="$SLURM_CGROUP_BASE/$c/$1"
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  return 0
}
