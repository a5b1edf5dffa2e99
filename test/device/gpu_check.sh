#!/bin/bash
# The checks eval single-quoted tests, expanded when they run:
# shellcheck disable=SC2016,SC2034
# The device check of petricore's NVIDIA source on a machine with a real GPU
# and driver (not part of scripts/test: the test machines have no GPU).
#
#   test/device/gpu_check.sh [PETRICORE]
#
# PETRICORE: a built binary (default: build it with meson into build-device/,
# or use build/src/petricore when that exists). Needs no Slurm and no root: a
# job is a process started with SLURM_JOB_ID and SLURM_JOB_GPUS in its
# environment, listed in a cgroup-like tree of its own that `collect --once`
# reads with --layout pattern (the real /proc beside it). The GPU is kept
# busy by test/device/gpu_busy.c, which needs only the driver (libcuda.so.1)
# and a C compiler; without them the busy checks are skipped and only the idle
# readings are compared.
#
# What it compares, petricore's `collect --once` against `nvidia-smi
# --query-gpu` read around it (bounds, and why):
#   uuid, model, memory total    exactly (both from NVML; MiB both sides,
#                                total within 1 MiB for rounding)
#   gpuid                        the GPU's minor number (nvidia-smi -q)
#   memory used                  within max(64 MiB, 5 %) of the mean of the
#                                two nvidia-smi readings around the pass
#                                (the driver's own allocations move a little)
#   utilisation                  busy: petricore >= 80 % and within 20 points
#                                of nvidia-smi; idle: both <= 10 % (each is
#                                the driver's last sample period, read at
#                                slightly different moments)
#   power                        within max(25 W, 25 %) of the mean of the two
#                                nvidia-smi readings (power moves within a
#                                second under load)
#   the busy process             among nvidia-smi's compute apps, and its
#                                job has no foreign GPU process
#
# Prints one line per check and "N passed, M failed"; exit 0 all passed, 1 a
# check failed, 77 skipped (no NVIDIA driver). NVML_LIBRARY (default
# libnvidia-ml.so.1) is for trying the script itself without a GPU: the
# stand-in NVML with a stub nvidia-smi first in PATH.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
passed=0
failed=0
ok() {
  passed=$((passed + 1))
  echo "ok: $*"
}
not_ok() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}
check() {  # DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}
within() {  # A B ABS REL: |A - B| <= max(ABS, REL x B)
  awk -v a="$1" -v b="$2" -v abs="$3" -v rel="$4" 'BEGIN {
    if (a == "" || b == "") exit 1
    d = a - b; if (d < 0) d = -d; t = rel * b; if (t < 0) t = -t; if (t < abs) t = abs; exit !(d <= t) }'
}
mean() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a + b) / 2 }'; }

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no NVIDIA driver here (nvidia-smi -L fails or is missing)"
  exit 77
fi

T=$(mktemp -d /tmp/petricore-gpucheck.XXXXXX) || exit 1
BUSY_PID=''
cleanup() {
  [ -n "$BUSY_PID" ] && kill "$BUSY_PID" 2>/dev/null && wait "$BUSY_PID" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT

# ---- petricore
PETRICORE=${1:-}
if [ -z "$PETRICORE" ] && [ -x "$root/build/src/petricore" ]; then PETRICORE=$root/build/src/petricore; fi
if [ -z "$PETRICORE" ]; then
  echo "# building petricore into $root/build-device"
  if ! { [ -f "$root/build-device/build.ninja" ] || meson setup "$root/build-device" "$root" >"$T/build.log" 2>&1; } ||
    ! meson compile -C "$root/build-device" src/petricore >>"$T/build.log" 2>&1; then
    tail -n 20 "$T/build.log"
    not_ok "petricore builds (meson; scripts/install-deps installs what it needs)"
    echo "$passed passed, $failed failed"
    exit 1
  fi
  PETRICORE=$root/build-device/src/petricore
fi
check "petricore runs: $("$PETRICORE" --version 2>&1 | head -n 1)" eval '"$PETRICORE" --version >/dev/null'

# ---- the GPU, as nvidia-smi sees it (the first one)
FIELDS=uuid,name,memory.total,memory.used,utilization.gpu,power.draw
smi() { nvidia-smi -i 0 --query-gpu=$FIELDS --format=csv,noheader,nounits | sed 's/, /,/g'; }
minor=$(nvidia-smi -q -i 0 | sed -nE 's/^ *Minor Number *: *([0-9]+).*/\1/p' | head -n 1)
IFS=, read -r uuid name total _ <<<"$(smi)"
echo "# GPU 0: $name $uuid, minor number $minor, $total MiB; driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0)"

# ---- the job: a process with Slurm's variables, in a tree of its own
# One pass of collect over the job: its jobs_gpu_* lines for $minor, into $1.
collect_job() {  # OUT PID
  local cg=$T/cgroup/cpuacct/slurm/1
  rm -rf "$T/cgroup"
  mkdir -p "$cg"
  echo "$2" >"$cg/cgroup.procs"
  echo 0 >"$cg/cpuacct.usage"
  printf 'user 0\nsystem 0\n' >"$cg/cpuacct.stat"
  "$PETRICORE" collect --once --once-window 0.2 --instance check --cgroup-root "$T/cgroup" --proc-root /proc \
    --layout pattern --job-pattern 'cpuacct/slurm/(?<job>[0-9]+)' --rocm-smi-library none \
    --nvml-library "${NVML_LIBRARY:-libnvidia-ml.so.1}" >"$1" 2>"$1.err"
}
value() {  # FILE METRIC: the value of METRIC{...gpuid="$minor"...} on job 1
  sed -nE "s/^$2\\{instance=\"check\",slurm_job=\"1\",gpuid=\"$minor\"[^}]*\\} ([0-9.e+-]+)\$/\\1/p" "$1" | head -n 1
}
compare() {  # STATE FILE SMI_BEFORE SMI_AFTER PID
  local file=$2 b a
  IFS=, read -r -a b <<<"$3"
  IFS=, read -r -a a <<<"$4"
  local info
  info=$(grep -E "^jobs_gpu_info\\{instance=\"check\",slurm_job=\"1\",gpuid=\"$minor\"," "$file")
  check "$1: jobs_gpu_info names GPU $minor with nvidia-smi's uuid ($uuid) and model ($name)" \
    eval '[[ "$info" == *"uuid=\"$uuid\""* && "$info" == *"model=\"$name\""* && "$info" == *"vendor=\"nvidia\""* ]]'
  local p_total p_used p_util p_power s_used s_power
  p_total=$(value "$file" jobs_gpu_memory_total_mb)
  p_used=$(value "$file" jobs_gpu_memory_used_mb)
  p_util=$(value "$file" jobs_gpu_utilization_percent)
  p_power=$(value "$file" jobs_gpu_power_watts)
  s_used=$(mean "${b[3]}" "${a[3]}")
  s_power=$(mean "${b[5]}" "${a[5]}")
  check "$1: memory total $p_total MiB = nvidia-smi ${b[2]} MiB (within 1 MiB)" within "$p_total" "${b[2]}" 1 0
  check "$1: memory used $p_used MiB ~ nvidia-smi $s_used MiB (within max(64 MiB, 5 %))" within "$p_used" "$s_used" 64 0.05
  if [ "$1" = busy ]; then
    check "$1: utilisation $p_util % >= 80 and within 20 points of nvidia-smi ${b[4]}/${a[4]} %" \
      awk -v p="$p_util" -v x="${b[4]}" -v y="${a[4]}" 'BEGIN { m = (x + y) / 2; d = p - m; if (d < 0) d = -d; exit !(p != "" && p >= 80 && d <= 20) }'
  else
    check "$1: utilisation $p_util % and nvidia-smi ${b[4]}/${a[4]} % all <= 10 %" \
      awk -v p="$p_util" -v x="${b[4]}" -v y="${a[4]}" 'BEGIN { exit !(p != "" && p <= 10 && x <= 10 && y <= 10) }'
  fi
  if [[ "${b[5]}" =~ ^[0-9.]+$ ]]; then
    check "$1: power $p_power W ~ nvidia-smi $s_power W (within max(25 W, 25 %))" within "$p_power" "$s_power" 25 0.25
  else
    check "$1: no power series where nvidia-smi has none (${b[5]})" [ -z "$p_power" ]
  fi
  check "$1: no foreign GPU process on the job" eval '! grep -q "^jobs_gpu_foreign_processes{instance=\"check\",slurm_job=\"1\"" "$file"'
  check "$1: no gpu error counted ($(grep 'source="gpu"' "$file" | tr '\n' ' '))" \
    eval '! grep -qE "^petricore_collect_errors_total\\{instance=\"check\",source=\"gpu\"\\} [1-9]" "$file"'
}

# Idle: a job whose only process is a sleep, holding the GPU by its number.
SLURM_JOB_ID=1 SLURM_JOB_GPUS=$minor sleep 60 &
IDLE_PID=$!
before=$(smi)
collect_job "$T/idle.prom" "$IDLE_PID"
after=$(smi)
kill "$IDLE_PID" 2>/dev/null
wait "$IDLE_PID" 2>/dev/null
busy_apps=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -c . || true)
if [ "$busy_apps" -gt 0 ]; then
  echo "# note: $busy_apps compute process(es) of others run on the GPU: the idle utilisation check may not hold"
fi
check "idle: collect --once ran ($(head -c 200 "$T/idle.prom.err"))" grep -q '^jobs_gpu_info' "$T/idle.prom"
compare idle "$T/idle.prom" "$before" "$after"

# Busy: the job's process runs a kernel on the GPU and holds 1 GiB.
busy=''
if command -v cc >/dev/null && cc -O2 -o "$T/gpu_busy" "$here/gpu_busy.c" -ldl 2>"$T/cc.err"; then
  SLURM_JOB_ID=1 SLURM_JOB_GPUS=$minor CUDA_VISIBLE_DEVICES=0 "$T/gpu_busy" 0 40 1024 >"$T/busy.out" 2>"$T/busy.err" &
  BUSY_PID=$!
  for _ in $(seq 1 100); do
    grep -q ready "$T/busy.out" 2>/dev/null && break
    kill -0 "$BUSY_PID" 2>/dev/null || break
    sleep 0.2
  done
  if grep -q ready "$T/busy.out"; then
    busy=yes
  else
    echo "# the GPU could not be kept busy: $(cat "$T/busy.err")"
  fi
else
  echo "# no C compiler to build gpu_busy.c: $(head -n 3 "$T/cc.err" 2>/dev/null)"
fi
if [ "$busy" = yes ]; then
  sleep 2  # the driver's utilisation sample period
  before=$(smi)
  collect_job "$T/busy.prom" "$BUSY_PID"
  after=$(smi)
  apps=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | tr -d ' ' | tr '\n' ' ')
  check "busy: the job's process $BUSY_PID is among nvidia-smi's compute apps ($apps)" eval '[[ " $apps" == *" $BUSY_PID "* ]]'
  compare busy "$T/busy.prom" "$before" "$after"
  echo "# petricore's lines for the busy GPU:"
  grep -E "^jobs_gpu_[a-z_]+\\{instance=\"check\",slurm_job=\"1\"" "$T/busy.prom" | sed 's/^/#   /'
else
  echo "# only the idle readings were checked: nothing here could load the GPU (gpu_busy.c needs cc and libcuda.so.1)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
