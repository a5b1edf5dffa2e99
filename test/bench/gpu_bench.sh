#!/usr/bin/env bash
# The GPU sources' cost (README.md, "GPU sources"): CPU added per pass with 8
# stand-in GPUs (gpu_bench), and the resident memory of the real `petricore
# collect` daemon on the slurm-v2-gpu fixture node without a GPU library
# (--nvml-library none: the collector as it was before the GPU sources),
# with the default library missing (a node without GPUs), and with the
# stand-in NVML answering for 8 GPUs, whose own mapped pages are subtracted.
#
#   test/bench/gpu_bench.sh [BUILD-DIR]      (default: ./build)
#
# Environment: PASSES=2000 DAEMON_SECONDS=6. Prints figures; exits non-zero
# only when the benchmark cannot run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
bench=$build/test/bench/gpu_bench
petricore=$build/src/petricore
standin=$build/test/standin/libnvidia-ml-standin.so.1
fixture=$here/../fixtures/slurm-v2-gpu
PASSES=${PASSES:-2000} DAEMON_SECONDS=${DAEMON_SECONDS:-6}
for f in "$bench" "$petricore" "$standin"; do
  [ -e "$f" ] || { echo "gpu_bench.sh: $f not built (meson compile -C $build)" >&2; exit 1; }
done

"$bench" --fixture "$fixture" --library "$standin" --gpus 8 --passes "$PASSES"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# 8 GPUs, the fixture's job processes on three of them.
for i in $(seq 0 7); do
  echo "gpu minor=$i uuid=GPU-$((10000000 + i)) name=\"NVIDIA A100-SXM4-80GB\" memory_total_mib=81920"
  echo "sample gpu=$i util=$((i * 13)) memory_util=5 memory_used_mib=$((1024 * (i + 1))) power_mw=$((60000 + 10000 * i))"
done >"$T/standin"

# kB of resident memory of the daemon after DAEMON_SECONDS of 1-s passes,
# and the kB of it that the library's own mappings hold.
daemon_rss() {  # LABEL ARGS...
  local label=$1 pid rss lib
  shift
  PETRICORE_NVML_STANDIN=$T/standin "$petricore" collect --textfile "$T/out.prom" --interval 1 --watch-interval 0 \
    --instance bench --cgroup-root "$fixture/cgroup" --proc-root "$fixture/proc" "$@" \
    >"$T/log" 2>&1 &
  pid=$!
  sleep "$DAEMON_SECONDS"
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
  lib=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { mine = ($NF ~ /libnvidia-ml/) } mine && /^Rss:/ { s += $2 } END { print s + 0 }' \
    "/proc/$pid/smaps")
  kill "$pid"
  wait "$pid" 2>/dev/null
  printf '  %-46s %8d kB  (library mappings %d kB; gpu series %d)\n' "$label" "$rss" "$lib" \
    "$(grep -c '^jobs_gpu_info' "$T/out.prom")"
  echo "$rss $lib" >"$T/$label.rss"
}
echo "petricore collect on $fixture, resident memory after ${DAEMON_SECONDS} s:"
daemon_rss "no GPU source (both libraries none)" --nvml-library none --rocm-smi-library none
# The default NVML soname would load a real driver's library where there is one.
daemon_rss "both libraries missing (a node without GPUs)" --nvml-library "libnvidia-ml-missing.so.1"
daemon_rss "stand-in NVML, 8 GPUs" --nvml-library "$standin" --rocm-smi-library none
read -r none _ <"$T/no GPU source (both libraries none).rss"
read -r missing _ <"$T/both libraries missing (a node without GPUs).rss"
read -r with lib <"$T/stand-in NVML, 8 GPUs.rss"
echo "  node without GPUs: $((missing - none)) kB over no GPU source (target: unchanged)"
echo "  with 8 GPUs: $((with - none - lib)) kB over no GPU source, the library's $lib kB left out (target <= 2048 kB)"
