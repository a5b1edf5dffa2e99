#!/usr/bin/env bash
# The collector benchmark (README.md): a synthetic node of real v1 Slurm-layout
# cgroups (64 jobs x 32 processes x 4 threads x 8 open files by default), the
# cost of one petricore pass against a raw-read baseline, the RSS of the real
# `petricore collect` daemon on that node, and a job create/remove churn.
#
#   test/bench/collect_bench.sh [BUILD-DIR]          (default: ./build)
#   meson compile -C BUILD-DIR bench
#
# Environment knobs: JOBS=64 PROCS=32 PASSES=20 WARMUP=2 CYCLES=1000
# DAEMON_SECONDS=10 CALLGRIND=0 (1: also count instructions with callgrind)
# COMPARE=OTHER-BUILD-DIR (also measure that build's pass on the same node,
# between two runs of this one's, e.g. the commit before a change: ratios to
# the baseline from one run, under one load).
# Prints figures; exits non-zero only when the benchmark cannot run.
set -uo pipefail

build=$(realpath "${1:-build}")
bench=$build/test/bench/collect_bench
worker=$build/test/bench/bench_worker
petricore=$build/src/petricore
JOBS=${JOBS:-64} PROCS=${PROCS:-32} PASSES=${PASSES:-20} WARMUP=${WARMUP:-2} CYCLES=${CYCLES:-1000}
DAEMON_SECONDS=${DAEMON_SECONDS:-10} CALLGRIND=${CALLGRIND:-0} COMPARE=${COMPARE:-}
CG=/sys/fs/cgroup
CONTROLLERS=(cpuacct memory cpuset freezer)

cannot_run() { echo "collect_bench.sh: cannot run: $1" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || cannot_run "needs root to create cgroups"
for c in "${CONTROLLERS[@]}"; do
  [ -w "$CG/$c" ] && [ -f "$CG/$c/cgroup.procs" ] || cannot_run "no writable cgroup v1 hierarchy at $CG/$c"
done
for f in "$bench" "$worker" "$petricore"; do
  [ -x "$f" ] || cannot_run "$f not built (meson compile -C $build)"
done
command -v curl >/dev/null || cannot_run "curl is needed to scrape the daemon"

ROOT=slurm_kt$$
T=$(mktemp -d /var/tmp/petricore-bench.XXXXXX)  # disk-backed, like job files
mkdir -p "$T/files"
LEADERS=()
DAEMON=

in_cgroups() {  # the pids still in our cgroups
  local c
  for c in "${CONTROLLERS[@]}"; do
    [ -d "$CG/$c/$ROOT" ] && find "$CG/$c/$ROOT" -name cgroup.procs -exec cat {} + 2>/dev/null
  done | sort -u
}
stop_node() {
  local l p
  for l in "${LEADERS[@]}"; do kill -KILL -- "-$l" 2>/dev/null; done
  for p in $(in_cgroups); do kill -KILL "$p" 2>/dev/null; done  # anything else we put there
  for _ in $(seq 300); do [ -z "$(in_cgroups)" ] && break; sleep 0.1; done
  LEADERS=()
  for c in "${CONTROLLERS[@]}"; do
    [ -d "$CG/$c/$ROOT" ] && find "$CG/$c/$ROOT" -depth -type d -exec rmdir {} \; 2>/dev/null
  done
}
cleanup() {
  exec 2>/dev/null
  if [ -n "$DAEMON" ]; then
    kill -TERM "$DAEMON"
    for _ in $(seq 20); do kill -0 "$DAEMON" || break; sleep 0.1; done
    kill -KILL "$DAEMON"
  fi
  stop_node
  for c in "${CONTROLLERS[@]}"; do
    [ -d "$CG/$c/$ROOT" ] && echo "collect_bench.sh: warning: could not remove $CG/$c/$ROOT" >&2
  done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== collect_bench: $(nproc) CPUs, kernel $(uname -r), root $ROOT, temp $T"

# --- 1. the synthetic node ---------------------------------------------------
start=$(date +%s.%N)
base=$(( $$ * 1000 ))
for j in $(seq "$JOBS"); do
  env -i PATH=/usr/bin:/bin SLURM_JOB_ID=$((base + j)) SLURM_JOB_ACCOUNT=bench SLURM_JOB_GPUS=0,1 \
    "$worker" "$CG" "$ROOT" $((base + j)) "$PROCS" "$T/files" "$T/ready" </dev/null >/dev/null 2>>"$T/worker.err" &
  LEADERS+=($!)
  disown $!  # killed by process group at the end; no "Killed" notices
done
deadline=$((SECONDS + 120))
while [ "$(cat "$T/ready" 2>/dev/null | wc -l)" -lt "$JOBS" ]; do
  [ $SECONDS -lt $deadline ] || cannot_run "the node was not up after 120 s: $(head -3 "$T/worker.err")"
  for l in "${LEADERS[@]}"; do
    kill -0 "$l" 2>/dev/null || cannot_run "a job leader died: $(head -3 "$T/worker.err")"
  done
  sleep 0.2
done
in_node=$(in_cgroups | wc -l)
printf '== node: %d jobs x %d processes (4 threads, 8 files each) = %d processes in %s, up in %.1f s\n' \
  "$JOBS" "$PROCS" "$in_node" "$ROOT" "$(echo "$(date +%s.%N) - $start" | bc)"

# --- 2. one pass: petricore vs the raw-read baseline ---------------------------
echo
echo "== pass cost (collect_bench measure)"
"$bench" measure --passes "$PASSES" --warmup "$WARMUP" || cannot_run "collect_bench measure failed"
if [ -n "$COMPARE" ]; then
  other=$(realpath "$COMPARE")/test/bench/collect_bench
  [ -x "$other" ] || cannot_run "$other not built (meson compile -C $COMPARE test/bench/collect_bench)"
  echo
  echo "== pass cost of $COMPARE, same node (collect_bench measure)"
  "$other" measure --passes "$PASSES" --warmup "$WARMUP" || cannot_run "$other measure failed"
  echo
  echo "== pass cost of $build again"
  "$bench" measure --passes "$PASSES" --warmup "$WARMUP" || cannot_run "collect_bench measure failed"
fi

if [ "$CALLGRIND" = 1 ] && command -v valgrind >/dev/null; then
  echo
  echo "== instructions per pass (callgrind, user space only: the kernel's share of each syscall is not counted)"
  for who in sampler baseline; do
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$T/callgrind.$who" \
      "$bench" measure --passes 2 --warmup 1 --only "$who" >/dev/null 2>"$T/callgrind.$who.log" ||
      cannot_run "callgrind run failed: $(tail -3 "$T/callgrind.$who.log")"
    total=$(callgrind_annotate "$T/callgrind.$who" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
    printf '  %-9s %14s Ir per pass\n' "$who" "$(echo "${total:-0} / 2" | bc)"
    echo "$who=${total:-0}" >>"$T/callgrind.totals"
  done
  echo "  sampler, top functions by inclusive cost (Ir over 2 passes):"
  callgrind_annotate --inclusive=yes "$T/callgrind.sampler" 2>/dev/null |
    awk '/file:function/ { on = 1; next } on && /[0-9]/ && !/below main|libc_start|collect_bench.cpp|ld-linux|^ *-/ { print }' |
    sed -E 's/ \[[^]]*\]$//; s/std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >/std::string/g' |
    awk '!seen[$NF]++' | head -20 | cut -c1-150 | sed 's/^/   /'
  echo "  sampler, top functions by own cost:"
  callgrind_annotate "$T/callgrind.sampler" 2>/dev/null |
    awk '/file:function/ { on = 1; next } on && /[0-9]/ && !/^ *-/ { print }' |
    sed -E 's/ \[[^]]*\]$//; s/std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >/std::string/g' |
    head -10 | cut -c1-150 | sed 's/^/   /'
fi

# --- the real daemon on the same node ---------------------------------------------
echo
echo "== petricore collect daemon on the node (--interval 1, ${DAEMON_SECONDS} s)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$petricore" collect --listen "127.0.0.1:$port" --interval 1 --instance bench >"$T/daemon.log" 2>&1 &
DAEMON=$!
dstart=$(date +%s.%N)
sleep "$(echo "$DAEMON_SECONDS / 2" | bc -l)"
curl -sf "http://127.0.0.1:$port/metrics" >"$T/scrape1" || cannot_run "cannot scrape the daemon: $(tail -3 "$T/daemon.log")"
sleep "$(echo "$DAEMON_SECONDS / 2" | bc -l)"
curl -sf "http://127.0.0.1:$port/metrics" >"$T/scrape2" || cannot_run "cannot scrape the daemon: $(tail -3 "$T/daemon.log")"
elapsed=$(echo "$(date +%s.%N) - $dstart" | bc)
kill -0 "$DAEMON" 2>/dev/null || cannot_run "the daemon died: $(tail -3 "$T/daemon.log")"
rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON/status")
hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$DAEMON/status")
ticks=$(awk '{ print $14 + $15 }' "/proc/$DAEMON/stat")
fds=$(ls "/proc/$DAEMON/fd" | wc -l)
threads=$(awk '/^Threads:/ { print $2 }' "/proc/$DAEMON/status")
passes=$(echo "$elapsed" | awk '{ print int($1) + 1 }')
duration=$(awk '/^petricore_collect_duration_seconds/ { print $NF }' "$T/scrape2")
series=$(grep -vc '^#' "$T/scrape2")
jobs=$(awk '/^petricore_jobs/ { print $NF }' "$T/scrape2")
kill -TERM "$DAEMON"
wait "$DAEMON" 2>/dev/null
DAEMON=
awk -v rss="$rss" -v hwm="$hwm" -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v p="$passes" -v e="$elapsed" \
  -v d="$duration" -v s="$series" -v j="$jobs" -v f="$fds" -v th="$threads" 'BEGIN {
  printf "  VmRSS %.1f MiB, VmHWM %.1f MiB (target <= 10 MiB steady)\n", rss / 1024, hwm / 1024
  printf "  CPU %.2f s over %.1f s = %d passes: %.1f ms CPU per pass (startup and 2 scrapes included)\n", t / hz, e, p, 1000 * t / hz / p
  printf "  last pass wall time (petricore_collect_duration_seconds): %.1f ms\n", d * 1000
  printf "  %d jobs, %d series per scrape, %d open fds, %d threads\n", j, s, f, th
}'

# --- 3. churn --------------------------------------------------------------------------
echo
echo "== churn (collect_bench churn), after removing the node"
stop_node
"$bench" churn --worker "$worker" --root "$ROOT" --files "$T/files" --cycles "$CYCLES" ||
  cannot_run "collect_bench churn failed"
echo
echo "== done"
