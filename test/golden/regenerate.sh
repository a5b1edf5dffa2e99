#!/bin/bash
# Rewrites the golden exposition files test/fixtures/<case>/expected.prom by
# running `petricore collect --once` over each fixture tree. Review the diff
# like code before committing it.
#
# Usage: regenerate.sh [--out DIR] [PETRICORE]
#   --out DIR   write DIR/<case>.prom instead of the committed files
#               (check_golden.sh uses this)
#   PETRICORE   the binary (default: build/src/petricore in the source tree)
# Environment: PETRICORE_FIXTURES, the fixtures directory (default: the one
# next to this script); PETRICORE_NVML_STANDIN_LIBRARY, the stand-in
# libnvidia-ml.so.1 (default: the one in build/).
#
# Per case, optional files next to cgroup/ and proc/:
#   args        extra command-line arguments, one per line (e.g. --layout pattern)
#   nvml-standin  the node's NVIDIA GPUs: the file of the stand-in NVML
#               (test/standin/nvml_standin.c), which the case runs with;
#               without it, the case runs with no GPU library
#   owner-jobs  job ids whose owner comes from the owner of /proc/<pid> (cgroup
#               v2 and pattern layouts have no uid in the path). A checkout's
#               files belong to whoever checked it out, so for these jobs the
#               user/uid labels of jobs_info are written as "@proc-owner@".
#
# The petricore_collect_duration_seconds sample is dropped: it varies.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fixtures=${PETRICORE_FIXTURES:-$here/../fixtures}
out_dir=
if [ "${1:-}" = --out ]; then
  out_dir=$2
  shift 2
fi
petricore=${1:-$here/../../build/src/petricore}
nvml_standin_library=${PETRICORE_NVML_STANDIN_LIBRARY:-$here/../../build/test/standin/libnvidia-ml-standin.so.1}
if [ ! -x "$petricore" ]; then
  echo "regenerate.sh: $petricore is not an executable (build first, or pass the path)" >&2
  exit 2
fi

# The owner label pair the collector prints for a job owned by the checkout.
owner_labels() {
  local proc_dir=$1 pid_dirs uid name
  pid_dirs=("$proc_dir"/[0-9]*/)
  uid=$(stat -c %u "${pid_dirs[0]}")
  name=$(getent passwd "$uid" | cut -d: -f1 || true)
  printf 'user="%s",uid="%s"' "${name:-$uid}" "$uid"
}

status=0
for case_dir in "$fixtures"/*/; do
  case_dir=${case_dir%/}
  name=$(basename "$case_dir")
  [ -d "$case_dir/cgroup" ] && [ -d "$case_dir/proc" ] || continue
  extra=()
  if [ -f "$case_dir/args" ]; then
    mapfile -t extra < "$case_dir/args"
  fi
  # No GPU library of this machine's may reach a case: only a case's stand-in.
  gpu_env=(env -u PETRICORE_NVML_STANDIN)
  gpu_args=(--rocm-smi-library none --nvml-library none)
  if [ -f "$case_dir/nvml-standin" ]; then
    gpu_env=(env PETRICORE_NVML_STANDIN="$case_dir/nvml-standin")
    gpu_args=(--rocm-smi-library none --nvml-library "$nvml_standin_library")
  fi
  if [ -n "$out_dir" ]; then
    target=$out_dir/$name.prom
  else
    target=$case_dir/expected.prom
  fi
  raw=$(mktemp)
  if ! "${gpu_env[@]}" "$petricore" collect --once --once-window 0.01 --instance fixture \
      --cgroup-root "$case_dir/cgroup" --proc-root "$case_dir/proc" "${gpu_args[@]}" "${extra[@]}" \
      > "$raw" 2> "$raw.err"; then
    echo "regenerate.sh: petricore failed on $name:" >&2
    cat "$raw.err" >&2
    status=1
  fi
  sed_args=(-e '/^petricore_collect_duration_seconds[{ ]/d')
  if [ -f "$case_dir/owner-jobs" ]; then
    labels=$(owner_labels "$case_dir/proc")
    while read -r job; do
      [ -n "$job" ] || continue
      sed_args+=(-e "/^jobs_info{.*slurm_job=\"$job\"/s/$labels/user=\"@proc-owner@\",uid=\"@proc-owner@\"/")
    done < "$case_dir/owner-jobs"
  fi
  sed "${sed_args[@]}" "$raw" > "$target"
  rm -f "$raw" "$raw.err"
  [ -n "$out_dir" ] || echo "wrote $target"
done
exit $status
