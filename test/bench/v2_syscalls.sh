#!/usr/bin/env bash
# System calls of one steady collector pass on a cgroup v2 job, against the
# raw-read baseline (test/bench/README.md, "Files kept open between passes").
#
#   sudo test/bench/v2_syscalls.sh build [PROCESSES]
#
# On a cgroup v1 host the unified hierarchy is free: the script mounts it in
# a temp dir (no controllers there, so the memory.* files are missing for
# both sides: each counts the same failed opens), builds one Slurm 24.11-style
# job in a cgroup of its own (system.slice/node_slurmstepd.scope/job_1 with
# step_extern and step_batch, their slurm/ and user/task_0 leaves), puts
# PROCESSES sleeping processes in it (default 5: 4 in the batch step, 1 in the
# extern step) and counts with `strace -c` what `collect_bench measure
# --no-watch` makes per pass, for each side alone. MODE=cpu prints the CPU
# figures instead (no strace), MODE=callgrind the user-space instructions per
# pass (KEEP_PROFILE=PREFIX keeps the profiles). Figures only; needs root and
# strace (valgrind for callgrind). Everything is removed at the end, also on
# failure.
set -euo pipefail
build=${1:?usage: v2_syscalls.sh BUILD-DIR [PROCESSES]}
processes=${2:-5}
bench=$build/test/bench/collect_bench
[ "$(id -u)" = 0 ] || { echo "needs root (mount, cgroups)" >&2; exit 1; }
command -v strace >/dev/null || { echo "needs strace" >&2; exit 1; }
[ -x "$bench" ] || { echo "no $bench: meson compile -C $build first" >&2; exit 1; }

M=$(mktemp -d /tmp/petricore-v2sys.XXXXXX)
T=$M/petricore_v2_syscalls_$$
SCOPE=$T/system.slice/node_slurmstepd.scope
J=$SCOPE/job_1
W=$(mktemp -d /tmp/petricore-v2sys-out.XXXXXX)
PIDS=()
cleanup() {
  local p d
  for p in "${PIDS[@]}"; do
    echo "$p" >"$M/cgroup.procs" 2>/dev/null || true
    kill "$p" 2>/dev/null || true
  done
  wait 2>/dev/null || true
  if [ -d "$T" ]; then
    find "$T" -depth -type d | while read -r d; do rmdir "$d" 2>/dev/null || true; done
  fi
  umount "$M" 2>/dev/null || true
  rmdir "$M" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
mount -t cgroup2 none "$M"
mkdir -p "$J"/step_extern/{slurm,user/task_0} "$J"/step_batch/{slurm,user/task_0} "$SCOPE/system"
for i in $(seq "$processes"); do
  sleep 100000 &
  PIDS+=($!)
  leaf=step_batch
  [ "$i" = "$processes" ] && [ "$processes" -gt 1 ] && leaf=step_extern
  echo "$!" >"$J/$leaf/user/task_0/cgroup.procs"
done

passes=40
case ${MODE:-strace} in
  cpu)  # CPU figures, no strace
    "$bench" measure --passes 200 --warmup 2 --no-watch --cgroup-root "$T" 2>/dev/null |
      grep -E "CPU ms|pass|baseline|ratio"
    exit 0 ;;
  faults)  # minor page faults of the petricore side, 20 and 400 passes
    for n in 20 400; do
      /usr/bin/time -f "$n passes: %R minor faults" "$bench" measure --passes "$n" --warmup 2 --only sampler \
        --no-watch --cgroup-root "$T" 2>&1 >/dev/null | grep 'minor faults'
    done
    exit 0 ;;
  callgrind)  # user-space instructions per pass, each side alone
    for side in sampler baseline; do
      valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$W/cg.$side" "$bench" measure --passes "$passes" --warmup 2 \
        --only "$side" --no-watch --cgroup-root "$T" >/dev/null 2>&1
      ir=$(callgrind_annotate "$W/cg.$side" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
      echo "$side: $((ir / passes)) instructions per pass (callgrind, measured passes only)"
      [ -n "${KEEP_PROFILE:-}" ] && cp "$W/cg.$side" "$KEEP_PROFILE.$side"
    done
    exit 0 ;;
esac
for side in sampler baseline; do
  strace -f -c -o "$W/$side.strace" "$bench" measure --passes "$passes" --warmup 2 --only "$side" --no-watch \
    --cgroup-root "$T" >"$W/$side.out" 2>&1
done
# Warm-up and measured passes; start-up calls (a few dozen) are spread over
# them. The petricore side also runs the measured passes again timed in two
# parts, and one for the pull scrape's row.
n_sampler=$((2 * passes + 3)) n_baseline=$((passes + 2))
echo "one job, $processes processes, cgroup v2 ($(uname -r)); system calls per pass (strace -c over $n_sampler and $n_baseline passes):"
printf '%-12s %8s %8s %8s %8s %10s %8s %8s %8s %8s\n' '' openat close read pread64 getdents64 lseek readlink fstat* total
for side in sampler baseline; do
  n=$n_baseline
  [ "$side" = sampler ] && n=$n_sampler
  awk -v side="$side" -v n="$n" '
    $NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ { calls[$NF] = $4 }
    $NF == "total" { total = $(NF - 2) ~ /^[0-9]+$/ ? $(NF - 2) : $(NF - 1) }
    END {
      f = calls["newfstatat"] + calls["fstatfs"] + calls["fstat"]
      printf "%-12s %8.1f %8.1f %8.1f %8.1f %10.1f %8.1f %8.1f %8.1f %8.1f\n", side == "sampler" ? "petricore" : "baseline",
        calls["openat"] / n, calls["close"] / n, calls["read"] / n, calls["pread64"] / n, calls["getdents64"] / n,
        calls["lseek"] / n, calls["readlinkat"] / n, f / n, total / n }' "$W/$side.strace"
done
grep -h "CPU ms\|petricore pass\|raw-read baseline" "$W/sampler.out" "$W/baseline.out" | sed 's/^/  /'
