# shellcheck shell=bash
# Builds job cgroups the way Slurm 22.05's cgroup/v1 plugins do, on this
# host's real v1 hierarchies, for tests, benchmarks and the demo:
#   cpuacct, memory: <root>/uid_U/job_J/step_S/task_0
#   cpuset, freezer: <root>/uid_U/job_J/step_S
# Source this file; every function takes the Slurm root name (e.g. slurm_demo).
# Functions that can fail return non-zero at the first failure (the system's
# message on stderr), so callers can write `slurm_make_job ... || bail ...`.

SLURM_CGROUP_BASE=${SLURM_CGROUP_BASE:-/sys/fs/cgroup}
SLURM_CGROUP_CONTROLLERS=(cpuacct memory cpuset freezer)

# Prints why real job cgroups cannot be made here, or nothing when they can:
# needs root, and each controller mounted as a writable v1 hierarchy of its
# own (the file this library or the collector uses there is present).
slurm_cgroup_unavailable() {
  [ "$(id -u)" = 0 ] || { echo "needs root to create cgroups"; return; }
  local c d f
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d=$SLURM_CGROUP_BASE/$c
    case $c in
      cpuacct) f=cpuacct.usage ;;
      memory) f=memory.limit_in_bytes ;;
      cpuset) f=cpuset.cpus ;;
      *) f=cgroup.procs ;;
    esac
    [ -d "$d" ] || { echo "no cgroup v1 $c hierarchy at $d"; return; }
    if [ ! -f "$d/cgroup.procs" ] || [ ! -f "$d/$f" ]; then echo "$d is not a cgroup v1 $c hierarchy (no $f)"; return; fi
    [ -w "$d" ] || { echo "cgroup v1 $c hierarchy $d is not writable"; return; }
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
    [ -n "$(cat "$parent/$part/cpuset.cpus")" ] || cat "$parent/cpuset.cpus" >"$parent/$part/cpuset.cpus" || return 1
    [ -n "$(cat "$parent/$part/cpuset.mems")" ] || cat "$parent/cpuset.mems" >"$parent/$part/cpuset.mems" || return 1
    parent=$parent/$part
  done
  if [ -n "$cpus" ]; then echo "$cpus" >"$dir/cpuset.cpus" || return 1; fi
}

# Creates a job with one step; on an existing job, adds the step. Options
# via env: JOB_CPUS (e.g. 0-1), JOB_MEMORY_LIMIT (bytes or 512M).
slurm_make_job() {  # root uid job step
  local c d
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d=$(slurm_step_dir "$1" "$2" "$3" "$4" "$c")
    mkdir -p "$d" || return 1
    if [ "$c" = cpuset ]; then
      _slurm_cpuset_fill "$SLURM_CGROUP_BASE/cpuset/$1/uid_$2/job_$3" "${JOB_CPUS:-}" || return 1
      _slurm_cpuset_fill "$d" || return 1
    fi
  done
  if [ -n "${JOB_MEMORY_LIMIT:-}" ]; then
    echo "$JOB_MEMORY_LIMIT" > "$SLURM_CGROUP_BASE/memory/$1/uid_$2/job_$3/memory.limit_in_bytes" || return 1
  fi
}

# Moves a process into a step in every controller. A process can join by
# itself, e.g. a subshell: ( slurm_add_pid ... "$BASHPID" || exit; exec cmd ).
# Every path is looked up before the first move, so the lookups' own
# subshells never run inside the job.
slurm_add_pid() {  # root uid job step pid
  local c f procs=()
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    procs+=("$(slurm_step_dir "$1" "$2" "$3" "$4" "$c")/cgroup.procs")
  done
  for f in "${procs[@]}"; do
    echo "$5" > "$f" || return 1
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

# Kills every process of a job and removes its cgroups, leaf first, then the
# uid and root levels above it where no other job is left (another run's
# jobs there are untouched). Kills again what appears meanwhile (e.g. a
# child forked just before its parent died) and waits up to 5 s for the
# processes to exit; returns non-zero when the job's cgroups are still there.
slurm_remove_job() {  # root uid job
  local c d pid left=0 _
  for _ in $(seq 50); do
    for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
      d="$SLURM_CGROUP_BASE/$c/$1/uid_$2/job_$3"
      [ -d "$d" ] || continue
      find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null |
        while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done || true
    done
    left=0
    for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
      d="$SLURM_CGROUP_BASE/$c/$1/uid_$2/job_$3"
      [ -d "$d" ] || continue
      # A cgroup can only be removed once its processes are gone.
      find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
      if [ -d "$d" ]; then left=1; fi
    done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d="$SLURM_CGROUP_BASE/$c/$1"
    rmdir "$d/uid_$2" "$d" 2>/dev/null || true
  done
  [ "$left" = 0 ]
}

# Removes a whole Slurm root (all its jobs) from every controller. Always
# returns 0; check the directories for leftovers.
slurm_remove_root() {  # root
  local c d job uid
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d="$SLURM_CGROUP_BASE/$c/$1"
    [ -d "$d" ] || continue
    for job in "$d"/uid_*/job_*; do
      [ -d "$job" ] || continue
      uid=$(basename "$(dirname "$job")"); uid=${uid#uid_}
      slurm_remove_job "$1" "$uid" "$(basename "$job" | sed 's/^job_//')" || true
    done
  done
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    d="$SLURM_CGROUP_BASE/$c/$1"
    [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  return 0
}
