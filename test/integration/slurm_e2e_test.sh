#!/bin/bash
# Functions are called through wait_until and the EXIT trap:
# shellcheck disable=SC2317
# End to end against a REAL one-node Slurm 22.05 cluster (slurmctld, slurmd
# with proctrack/task/jobacct_gather cgroup on cgroup v1, slurmdbd, MariaDB,
# munge; lib/slurm_cluster.sh) and a real Pushgateway + Prometheus:
#
#   petricore collect --push PGW   at its DEFAULT intervals: a full pass every
#                                  15 s, the watch loop every 1 s; Prometheus
#                                  scrapes the Pushgateway every 1 s
#   real jobs, submitted with sbatch as the unprivileged user petricore-e2e:
#     cpu2      2 cores, stress --cpu 2 for 40 s
#     serial    2 cores, stress --cpu 1 for 40 s
#     memover   --mem=2G, touches 100 MB for 20 s
#     smallio   writes 2000 files of 16 KiB under the scratch prefix, then
#               stays 16 s (the I/O counters are read by full passes)
#     oom       --mem=100M, touches 300 MB: killed (OUT_OF_MEMORY)
#     gpu       --gres=gpu:2 over stand-in device nodes (SLURM_JOB_GPUS),
#               read through the stand-in NVML (test/standin): GPU 0 at a
#               steady 30 %, 4096 MiB, 150 W; GPU 1 idle (0 %, 50 W). The
#               job's numbers are checked exactly against those readings
#               (the stand-in's are the source of truth here), and
#               gpu_unused (GPU 1) and gpu_efficiency (15 % per GPU) fire.
#               The serial job puts its shell on GPU 1, which it does not
#               hold: jobs_gpu_foreign_processes counts it.
#     pagecache --mem=1G, writes 500 MB to scratch and reads it back: the
#               page cache fills, resident memory stays small
#     tasks2    -n 2 -c 1 --mem-per-cpu=128M, srun stress --cpu 1 for 20 s:
#               two busy tasks
#     short3 / short5   stress --cpu 1 for 3 s / 5 s: shorter than the
#               collector's interval
#   then, per job, `report ID --json --accounting sacct` (real sacct) is
#   checked against sacct's own TotalCPU, MaxRSS, Elapsed and State, and the
#   findings each job should (and should not) raise; `init-db` runs on
#   slurmdbd's real schema and `report --accounting db` must give the same
#   job figures.
#
# The host has 2 CPUs, so the "many cores" jobs use 2 (all there are): a
# node declaring more CPUs than exist cannot give the extra cores a cpuset.
#
# Tolerances (the issue's; why): for every job of 10 s or more, CPU time
# within max(1 s x allocated cores, 2 %) of sacct's TotalCPU — the collector
# reads a job's cgroup at most one watch interval (1 s) before its end, and
# the cgroup counts a little Slurm overhead TotalCPU leaves out; mean CPU
# within 2 points of TotalCPU / Elapsed (both over the same Elapsed); peak
# resident memory within max(2 MiB, 10 %) of MaxRSS (both anon + shmem-like
# RSS sampled over the job: jobacct_gather every 2 s, petricore every 15 s
# plus the job's first and last readings). Not compared: the OOM job's
# memory (its spike falls between samples of both), and the resident peak
# of jobs under 10 s. Jobs of 3-5 s must still get a CPU time (same
# tolerance) and a mean CPU %. cpu2's "near 200 %" and the absence of
# cpu_efficiency and serial_on_many_cores there are checked only when the
# host gave the job its cores (sacct's own TotalCPU/Elapsed per core >= 85
# %); on a busy host those findings are right to fire, and the check is
# reported as skipped with sacct's figure.
#
# Usage: slurm_e2e_test.sh PETRICORE_BINARY   (root; KEEP=1 keeps the temp dir)
# Exit 0 all passed, 1 a check failed, 77 skipped (not root, no cgroup v1,
# a binary missing).
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$here/../../scripts/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/slurm_cluster.sh
source "$here/../../scripts/lib/slurm_cluster.sh"
why=$(slurm_cluster_unavailable)
[ -z "$why" ] || skip "$why"

loopback_without_proxy

START=$SECONDS
T=$(mktemp -d /tmp/petricore-e2e.XXXXXX) || bail "create a temp dir"
COLLECT_PID=''
cleanup() {
  if [ -n "$COLLECT_PID" ]; then
    kill -TERM "$COLLECT_PID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$COLLECT_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$COLLECT_PID" 2>/dev/null
    wait "$COLLECT_PID" 2>/dev/null
  fi
  if [ "$failed" -gt 0 ]; then
    slurm_cluster_log_tail
    tail_logs 10 "$T/collect.log"
  fi
  slurm_cluster_cleanup
  echo "# run time $((SECONDS - START)) s"
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_until SECONDS COMMAND...: polls every 0.5 s; true once COMMAND succeeds.
wait_until() {
  local end=$((SECONDS + $1))
  shift
  until "$@"; do
    [ $SECONDS -ge $end ] && return 1
    sleep 0.5
  done
}

# ---- the cluster and the collector
slurm_cluster_start "$T" || bail "the Slurm test cluster did not start"
ok "cluster $SC_CLUSTER up (munged, mariadbd, slurmdbd, slurmctld, slurmd -N $SC_NODE, pushgateway, prometheus) in $((SECONDS - START)) s"

SCRATCH=$T/scratch
mkdir -p "$SCRATCH" && chown "$SC_USER:" "$SCRATCH" && chmod 755 "$SCRATCH"
# The stand-in NVML (built with the tests; meson names it) for the GRES GPUs.
NVML_LIB=${PETRICORE_NVML_STANDIN_LIBRARY:-}
GPU_ARGS=(--nvml-library none)
if [ "$SC_GPUS" -gt 0 ] && [ -f "$NVML_LIB" ]; then
  slurm_cluster_nvml_standin "$SC_DIR/nvml" || bail "write the stand-in NVML's file"
  # GPU 0 busy for the whole run, whoever holds it: the gpu job's readings
  # do not depend on when a pass falls.
  echo "sample gpu=0 util=30 memory_util=10 memory_used_mib=4096 power_mw=150000" >"$SC_DIR/nvml.d/00-gpu0"
  GPU_ARGS=(--nvml-library "$NVML_LIB")
  export PETRICORE_NVML_STANDIN=$SC_DIR/nvml
fi
"$PETRICORE" collect --push "$SC_PGW_URL" --instance "$SC_NODE" --scratch-prefix "$SCRATCH" "${GPU_ARGS[@]}" \
  </dev/null >"$T/collect.log" 2>&1 &
COLLECT_PID=$!
# Rules for short test jobs: everything but min_runtime stays at its default,
# the range query's step and after-end stretch too (15 s, 30 s).
printf '[rules]\nmin_runtime = 10\n' >"$T/petricore.toml"

# ---- the jobs
job_script() {  # NAME BODY: a batch script the job user can read
  printf '#!/bin/bash\n%s\n' "$2" >"$SC_JOBDIR/$1.sh"
  chmod 755 "$SC_JOBDIR/$1.sh"
}
job_script cpu2 'stress --cpu 2 --timeout 40s'
# The shell stands on GPU 1 as a process of the stand-in NVML's (the job
# holds no GPU): a foreign process.
job_script serial "[ -d $SC_DIR/nvml.d ] && echo \"process gpu=1 pid=\$\$\" >$SC_DIR/nvml.d/serial-\$SLURM_JOB_ID.new &&
  mv $SC_DIR/nvml.d/serial-\$SLURM_JOB_ID.new $SC_DIR/nvml.d/serial-\$SLURM_JOB_ID
stress --cpu 1 --timeout 40s"
job_script memover 'stress --vm 1 --vm-bytes 100M --vm-keep --timeout 20s'
job_script smallio "mkdir -p $SCRATCH/\$SLURM_JOB_ID && cd $SCRATCH/\$SLURM_JOB_ID || exit 1
/usr/bin/python3 - <<'EOF'
import os, time
block = b'x' * 16384
for i in range(2000):
    with open('f%04d' % i, 'wb') as f:
        f.write(block)
time.sleep(16)  # stay alive for a full pass (every 15 s) after the writes
EOF"
# shellcheck disable=SC2016 # expanded in the job
job_script oom 'sleep 6
stress --vm 1 --vm-bytes 300M --vm-keep --timeout 20s
rc=$?
sleep 5  # a sample or two after the kill
exit $rc'
# shellcheck disable=SC2016 # expanded in the job
job_script gpu 'echo "SLURM_JOB_GPUS=$SLURM_JOB_GPUS"
stress --cpu 1 --timeout 15s'
job_script pagecache "mkdir -p $SCRATCH/\$SLURM_JOB_ID && cd $SCRATCH/\$SLURM_JOB_ID || exit 1
dd if=/dev/zero of=big bs=1M count=500 conv=fsync status=none
cat big big >/dev/null
sleep 10  # long enough for the rules (min_runtime 10 s), the cache still there
rm -f big"
job_script tasks2 'srun stress --cpu 1 --timeout 20s'
job_script short3 'stress --cpu 1 --timeout 3s'
job_script short5 'stress --cpu 1 --timeout 5s'

declare -A JOB=()  # name -> id
NAMES=(cpu2 serial memover smallio oom gpu pagecache tasks2 short3 short5)
submit() {  # NAME SBATCH-ARGS...
  local name=$1 id
  shift
  id=$(slurm_cluster_submit "$SC_JOBDIR/$name.sh" -J "$name" -o "$SC_JOBDIR/$name-%j.out" --time=1 "$@" 2>"$T/sbatch.err")
  if [[ "$id" =~ ^[0-9]+$ ]]; then JOB[$name]=$id; else not_ok "sbatch $name: $(cat "$T/sbatch.err")"; fi
}
submit cpu2 -c 2 --mem=256M
submit serial -c 2 --mem=256M
submit memover -c 1 --mem=2G
submit smallio -c 1 --mem=512M
submit oom -c 1 --mem=100M
if [ "$SC_GPUS" -gt 1 ]; then submit gpu -c 1 --mem=256M --gres=gpu:2; fi
submit pagecache -c 1 --mem=1G
submit tasks2 -n 2 -c 1 --mem-per-cpu=128M
submit short3 -c 1 --mem=256M
submit short5 -c 1 --mem=256M
[ "${#JOB[@]}" -gt 0 ] || bail "no job was accepted"
echo "# jobs: $(for n in "${NAMES[@]}"; do [ -n "${JOB[$n]:-}" ] && printf '%s=%s ' "$n" "${JOB[$n]}"; done)"

# All of them end within 5 minutes (they run about 3 on the 2 CPUs).
if slurm_cluster_wait_idle 300; then
  ok "all jobs ended after $((SECONDS - START)) s"
else
  not_ok "jobs still queued after 240 s: $(timeout 5 squeue -h -o '%i %j %T %R' | tr '\n' ';')"
fi
# sacct has the end of every job (slurmctld -> slurmdbd is asynchronous).
sacct_done() {
  local n line
  for n in "${!JOB[@]}"; do
    line=$(slurm_cluster_sacct "${JOB[$n]}" JobID,State,End | head -n 1)
    case $line in *"|RUNNING|"* | *"|PENDING|"* | *"|Unknown" | "") return 1 ;; esac
  done
}
wait_until 30 sacct_done || not_ok "sacct shows every job ended within 30 s"
# The analysis reads 30 s past a job's end ([prometheus] after_end), where
# the collector's final readings are: the last job's must be in.
last_end=0
for n in "${!JOB[@]}"; do
  e=$(slurm_cluster_sacct "${JOB[$n]}" JobID,End | head -n 1 | cut -d'|' -f2)
  e=$(date -d "$e" +%s 2>/dev/null || echo 0)
  [ "$e" -gt "$last_end" ] && last_end=$e
done
left=$((last_end + 32 - $(date +%s)))
[ "$left" -gt 0 ] && sleep "$left"
if kill -0 "$COLLECT_PID" 2>/dev/null; then ok "collect still running"; else not_ok "collect died: $(tail -n 5 "$T/collect.log")"; fi

# ---- sacct's figures
# duration_s, size_mib
# shellcheck source=SCRIPTDIR/../../scripts/lib/sacct_units.sh
source "$(dirname "$0")/../../scripts/lib/sacct_units.sh"
declare -A S_STATE S_CPU S_RSS S_ELAPSED S_CPUS
read_sacct() {  # NAME
  local id=${JOB[$1]} line rss=0 r
  line=$(slurm_cluster_sacct "$id" JobID,State,ElapsedRaw,AllocCPUS,TotalCPU | grep "^$id|" | head -n 1)
  IFS='|' read -r _ "S_STATE[$1]" "S_ELAPSED[$1]" "S_CPUS[$1]" r <<<"$line"
  S_STATE[$1]=${S_STATE[$1]%% *}  # "CANCELLED by 0"
  S_CPU[$1]=$(duration_s "$r")
  for r in $(slurm_cluster_sacct "$id" JobID,MaxRSS | grep "^$id\." | cut -d'|' -f2); do
    r=$(size_mib "$r")
    rss=$(awk -v a="$rss" -v b="$r" 'BEGIN { print (b > a ? b : a) }')
  done
  S_RSS[$1]=$rss
}

# sacct's mean CPU use in % of one CPU: 100 x TotalCPU / Elapsed
sacct_avg() {
  awk -v c="${S_CPU[$1]}" -v e="${S_ELAPSED[$1]}" 'BEGIN { printf "%.1f", (e > 0 ? 100 * c / e : 0) }'
}

# ---- petricore report, with sacct and with the DB view
report() {  # NAME LABEL ARGS...: JSON to $T/NAME.LABEL.json
  local name=$1 out=$T/$1.$2.json
  shift 2
  timeout 60 "$PETRICORE" --config "$T/petricore.toml" report "${JOB[$name]}" --json --prometheus "$PROM_URL" "$@" \
    >"$out" 2>"$out.err"
}
all_equal() {  # A B [C]: all the same and not empty
  [ -n "$1" ] && [ "$1" = "$2" ] && [ "$1" = "${3:-$1}" ]
}
j() { jq -r "$2" "$T/$1" 2>/dev/null; }
findings() { j "$1" '[.findings[] | .rule + ":" + .severity] | join(",")'; }
has_finding() { j "$1" '.findings[].rule' | grep -qx "$2"; }
within() {  # A B ABS REL: |A - B| <= max(ABS, REL x B)
  awk -v a="$1" -v b="$2" -v abs="$3" -v rel="$4" 'BEGIN {
    if (a == "" || a == "null") exit 1
    d = a - b; if (d < 0) d = -d; t = rel * b; if (t < abs) t = abs; exit !(d <= t) }'
}

for n in "${NAMES[@]}"; do
  [ -n "${JOB[$n]:-}" ] || continue
  read_sacct "$n"
  if ! report "$n" sacct --accounting sacct; then
    not_ok "$n (${JOB[$n]}): report --accounting sacct failed: $(cat "$T/$n.sacct.json.err")"
    continue
  fi
  f=$n.sacct.json
  id=${JOB[$n]}
  state=$(j "$f" .state)
  if [ "$n" = oom ]; then want=OUT_OF_MEMORY; else want=COMPLETED; fi
  check "$n ($id): state $state = sacct ${S_STATE[$n]} = $want" all_equal "$state" "${S_STATE[$n]}" "$want"

  cpu=$(j "$f" .cpu.time_total.time)
  cpu_src=$(j "$f" .cpu.time_total.source)
  tol=${S_CPUS[$n]}
  if within "$cpu" "${S_CPU[$n]}" "$tol" 0.02; then
    ok "$n: cpu.time_total $cpu s ($cpu_src) ~ sacct TotalCPU ${S_CPU[$n]} s (within max($tol s, 2 %))"
  else
    not_ok "$n: cpu.time_total $cpu s ($cpu_src) vs sacct TotalCPU ${S_CPU[$n]} s (tolerance max($tol s, 2 %))"
  fi
  avg=$(j "$f" .cpu.avg_usage_job.usage)
  S_AVG=$(sacct_avg "$n")
  if within "$avg" "$S_AVG" 2 0; then
    ok "$n: mean CPU $avg % ~ sacct TotalCPU/Elapsed $S_AVG % (within 2 points)"
  else
    not_ok "$n: mean CPU $avg % vs sacct TotalCPU/Elapsed $S_AVG % (tolerance 2 points)"
  fi
  ram=$(j "$f" .ram.used.amount)
  if [ "$n" = oom ]; then
    echo "# note: oom resident peak $ram MB vs MaxRSS ${S_RSS[$n]} MiB: the spike before the kill falls between samples"
  elif [ "${S_ELAPSED[$n]}" -lt 10 ]; then
    echo "# note: $n (${S_ELAPSED[$n]} s) resident peak $ram MB vs MaxRSS ${S_RSS[$n]} MiB (not compared under 10 s)"
  elif within "$ram" "${S_RSS[$n]}" 2 0.10; then
    ok "$n: resident peak (ram.used) $ram MB ~ sacct MaxRSS ${S_RSS[$n]} MiB (within max(2 MiB, 10 %))"
  else
    not_ok "$n: resident peak (ram.used) $ram MB vs sacct MaxRSS ${S_RSS[$n]} MiB (tolerance max(2 MiB, 10 %))"
  fi
  fs=$(findings "$f")
  if [ "$n" != oom ] && has_finding "$f" job_state; then not_ok "$n: job_state fires for a $state job: $fs"; fi

  case $n in
    cpu2)
      # sacct's own efficiency per allocated core: did the host give the job its cores?
      host_eff=$(awk -v a="$S_AVG" -v c="${S_CPUS[$n]}" 'BEGIN { printf "%.0f", a / c }')
      if [ "$host_eff" -ge 85 ]; then
        check "cpu2: mean CPU $avg % near 200 % (160..210)" awk -v a="$avg" 'BEGIN { exit !(a >= 160 && a <= 210) }'
        if has_finding "$f" cpu_efficiency || has_finding "$f" serial_on_many_cores; then
          not_ok "cpu2: cpu_efficiency or serial_on_many_cores fires: $fs"
        else
          ok "cpu2: neither cpu_efficiency nor serial_on_many_cores fires ($fs)"
        fi
      else
        # Then the findings are right to fire: petricore saw what sacct saw.
        ok "cpu2: mean CPU near 200 %, no cpu_efficiency, no serial_on_many_cores # SKIP host busy: sacct says $S_AVG % ($host_eff % per core); petricore $avg %, findings: $fs"
      fi
      ;;
    serial)
      if has_finding "$f" serial_on_many_cores || has_finding "$f" cpu_efficiency; then
        ok "serial: serial_on_many_cores and/or cpu_efficiency fire ($fs)"
      else
        not_ok "serial: neither serial_on_many_cores nor cpu_efficiency fires (mean $avg %): $fs"
      fi
      if [ -n "${PETRICORE_NVML_STANDIN:-}" ]; then
        foreign=$(curl -s --max-time 10 "$PROM_URL/api/v1/query" \
          --data-urlencode "query=max_over_time(jobs_gpu_foreign_processes{slurm_job=\"$id\",gpuid=\"1\"}[1h])" |
          jq -r '.data.result[0].value[1] // "none"')
        check "serial: its shell on GPU 1, which it does not hold: jobs_gpu_foreign_processes{gpuid=\"1\"} = $foreign" \
          [ "$foreign" = 1 ]
        held=$(j "$f" '.gpu.utilization.per_gpu // [] | length')
        check "serial: no GPU readings in its report (a foreign GPU is not the job's): $held" [ "$held" = 0 ]
      fi
      ;;
    memover)
      check "memover: memory_overallocated fires (peak $ram MB of 2048): $fs" has_finding "$f" memory_overallocated
      ;;
    smallio)
      wc=$(j "$f" .io.write.count) wmb=$(j "$f" .io.write.amount)
      check "smallio: io.write.count $wc >= 2000 and io.write.amount $wmb MB >= 25 (2000 x 16 KiB = 31.25 MiB)" \
        awk -v c="$wc" -v m="$wmb" 'BEGIN { exit !(c != "null" && c >= 2000 && m >= 25) }'
      check "smallio: uses_scratch true" [ "$(j "$f" .uses_scratch)" = true ]
      ;;
    oom)
      sev=$(j "$f" '[.findings[] | select(.rule == "job_state") | .severity] | join(",")')
      check "oom: job_state finding is critical ($fs)" [ "$sev" = critical ]
      check "oom: warning is true" [ "$(j "$f" .warning)" = true ]
      mem_advice=$(j "$f" '[.findings[] | select(.advice | test("--mem")) | .rule] | join(",")')
      check "oom: one memory advice, the job_state one to ask for more (advising: $mem_advice)" \
        [ "$mem_advice" = job_state ]
      ;;
    pagecache)
      peak=$(j "$f" .ram.peak.amount) cache=$(j "$f" .ram.breakdown.file)
      check "pagecache: resident peak $ram MB < 50 MB while the cgroup peak with page cache is $peak MB (>= 400)" \
        awk -v r="$ram" -v p="$peak" 'BEGIN { exit !(r != "null" && r < 50 && p != "null" && p >= 400) }'
      # What a finding says the job used and what it advises to ask for.
      said=$(j "$f" '[.findings[] | select(.rule | startswith("memory")) | .message + " " + .advice] | join(" ")')
      asked=$(printf '%s' "$said" | grep -oE -- '--mem(-per-cpu)?=[0-9]+M' | grep -oE '[0-9]+' | sort -n | tail -n 1)
      used=$(printf '%s' "$said" | grep -oE 'resident memory peaked at [0-9.]+' | grep -oE '[0-9.]+$' | sort -n | tail -n 1)
      if [ "${asked:-0}" -lt 100 ] && awk -v u="${used:-0}" 'BEGIN { exit !(u < 50) }'; then
        ok "pagecache: memory findings speak of resident memory (${used:-no} MB used, --mem ${asked:-none}), not the cache ($fs; cache at the resident peak $cache MB)"
      else
        not_ok "pagecache: a memory finding counts the page cache: $said"
      fi
      ;;
    tasks2)
      if has_finding "$f" too_many_threads; then
        not_ok "tasks2: too_many_threads fires on srun's own threads: $fs ($(j "$f" '.threads | tostring'))"
      else
        ok "tasks2: no launcher-thread finding (threads $(j "$f" '.threads | tostring'))"
      fi
      # Both tasks busy only when the host gave the job its two cores.
      host_eff=$(awk -v a="$S_AVG" -v c="${S_CPUS[$n]}" 'BEGIN { printf "%.0f", a / c }')
      if [ "$host_eff" -lt 85 ]; then
        ok "tasks2: no serial finding # SKIP host busy: sacct says $S_AVG % ($host_eff % per core); findings: $fs"
      elif has_finding "$f" serial_on_many_cores; then
        not_ok "tasks2: serial_on_many_cores fires on two busy tasks: $fs"
      else
        ok "tasks2: no serial finding ($fs)"
      fi
      if j "$f" '.findings[].advice' | grep -q -- --cpus-per-task; then
        not_ok "tasks2: advice mentions --cpus-per-task: $(j "$f" '[.findings[].advice] | join(" / ")')"
      else
        ok "tasks2: no advice about --cpus-per-task"
      fi
      ;;
    short3 | short5)
      check "$n (${S_ELAPSED[$n]} s): has a CPU time ($cpu s) and a mean CPU % ($avg %)" \
        awk -v c="$cpu" -v a="$avg" 'BEGIN { exit !(c != "null" && c != "" && a != "null" && a != "") }'
      ;;
    gpu)
      env_gpus=$(sed -n 's/^SLURM_JOB_GPUS=//p' "$SC_JOBDIR/gpu-$id.out")
      check "gpu: Slurm set SLURM_JOB_GPUS=$env_gpus in the job" [ "$env_gpus" = 0,1 ]
      got=$(j "$f" ".gpu.alloc_gpu[\"$SC_NODE\"] | map(tostring) | join(\",\")")
      check "gpu: gpu.alloc_gpu.$SC_NODE = [$got] = SLURM_JOB_GPUS" all_equal "$got" "$env_gpus"
      check "gpu: alloc_tres.alloc_gpu = 2 (sacct AllocTRES gres/gpu=2)" [ "$(j "$f" .alloc_tres.alloc_gpu)" = 2 ]
      if [ -z "${PETRICORE_NVML_STANDIN:-}" ]; then
        ok "gpu: readings and GPU findings # SKIP no stand-in NVML (PETRICORE_NVML_STANDIN_LIBRARY unset)"
      else
        # Exact: the stand-in gave the same readings at every pass.
        per_gpu=$(j "$f" '[.gpu.utilization.per_gpu[] | "\(.gpuid):\(.mean):\(.max):\(.memory_peak_mb):\(.memory_total_mb):\(.power_mean_w)"] | join(" ")')
        check "gpu: per GPU (id:mean:max:memory peak:total:power) [$per_gpu] = the stand-in's readings" \
          [ "$per_gpu" = "0:30:30:4096:40960:150 1:0:0:0:40960:50" ]
        check "gpu: utilisation mean per GPU $(j "$f" .gpu.utilization.mean) % = (30 + 0) / 2, max $(j "$f" .gpu.utilization.max)" \
          [ "$(j "$f" '[.gpu.utilization.mean, .gpu.utilization.max] | map(tostring) | join(",")')" = 15,30 ]
        check "gpu: memory peak $(j "$f" .gpu.memory.peak_mb) of $(j "$f" .gpu.memory.total_mb) MB, power $(j "$f" .gpu.power.mean_w) W" \
          [ "$(j "$f" '[.gpu.memory.peak_mb, .gpu.memory.total_mb, .gpu.power.mean_w] | map(tostring) | join(",")')" = 4096,81920,200 ]
        energy=$(j "$f" .gpu.power.energy_wh)
        want=$(awk -v t="${S_ELAPSED[$n]}" 'BEGIN { printf "%.2f", 200 * t / 3600 }')
        check "gpu: energy $energy Wh = 200 W x Elapsed ${S_ELAPSED[$n]} s = $want Wh (within 0.01)" \
          within "$energy" "$want" 0.01 0
        unused=$(j "$f" '[.findings[] | select(.rule == "gpu_unused") | .severity] | join(",")')
        check "gpu: gpu_unused fires (critical) for GPU 1 ($fs)" [ "$unused" = critical ]
        eff=$(j "$f" '[.findings[] | select(.rule == "gpu_efficiency") | "\(.severity):\(.value)"] | join(",")')
        check "gpu: gpu_efficiency fires, critical at 15 % per GPU ($eff)" [ "$eff" = critical:15 ]
        info=$(curl -s --max-time 10 "$PROM_URL/api/v1/query" \
          --data-urlencode "query=count(max_over_time(jobs_gpu_info{slurm_job=\"$id\",vendor=\"nvidia\"}[1h]))" |
          jq -r '.data.result[0].value[1] // "none"')
        check "gpu: jobs_gpu_info has both GPUs in Prometheus ($info)" [ "$info" = 2 ]
      fi
      ;;
  esac
done

# ---- the DB view on slurmdbd's real schema
printf 'e2e-%s-%s\n' "$RANDOM" "$RANDOM" >"$T/dbpw"
chmod 600 "$T/dbpw"
if timeout 60 "$PETRICORE" init-db --cluster "$SC_CLUSTER" --web-host 127.0.0.1 --password-file "$T/dbpw" \
  --db-socket "$MDB_SOCKET" >"$T/initdb.out" 2>&1; then
  ok "init-db on slurmdbd's schema (cluster $SC_CLUSTER): $(grep -c . "$T/initdb.out") lines, $(grep '^created view' "$T/initdb.out")"
  db_ok=1
else
  not_ok "init-db on slurmdbd's schema: $(tail -n 5 "$T/initdb.out")"
  db_ok=0
fi
KEYS='[.jobid, .username, .sponsor, .state, .start, .end, .runtime, .alloc_tres.alloc_cpu, .alloc_tres.alloc_mem, .alloc_tres.alloc_nodes, .cpu.time_total.time, .cpu.avg_usage_job.usage, .ram.used.amount, .ram.peak.amount, .io.write.count, .uses_scratch, ([.findings[].rule] | sort)]'
for n in "${NAMES[@]}"; do
  if [ -z "${JOB[$n]:-}" ] || [ "$db_ok" != 1 ]; then continue; fi
  if ! report "$n" db --accounting db --db-host 127.0.0.1 --db-port "$MDB_PORT" --db-password-file "$T/dbpw"; then
    not_ok "$n (${JOB[$n]}): report --accounting db failed: $(cat "$T/$n.db.json.err")"
    continue
  fi
  a=$(j "$n.sacct.json" "$KEYS | tostring") b=$(j "$n.db.json" "$KEYS | tostring")
  if [ -n "$a" ] && [ "$a" = "$b" ]; then
    ok "$n: report --accounting db = --accounting sacct: $b"
  else
    not_ok "$n: report --accounting db differs from sacct: db $b, sacct $a"
  fi
  if [ "$n" = gpu ]; then
    check "gpu: db alloc_tres.alloc_gpu = 2" [ "$(j "$n.db.json" .alloc_tres.alloc_gpu)" = 2 ]
  fi
  if [ "$n" = tasks2 ]; then
    # The DB view's mem_req tells a per-CPU request; sacct prints only the total.
    adv_db=$(j "$n.db.json" '.findings[] | select(.rule == "memory_overallocated") | .advice' | grep -oE -- '--mem[-a-z]*=[0-9]+M')
    adv_sacct=$(j "$n.sacct.json" '.findings[] | select(.rule == "memory_overallocated") | .advice' | grep -oE -- '--mem[-a-z]*=[0-9]+M')
    check "tasks2 (--mem-per-cpu): the DB view's advice is per CPU ($adv_db), sacct's per node ($adv_sacct)" \
      eval '[[ "$adv_db" == --mem-per-cpu=* && "$adv_sacct" == --mem=* ]]'
  fi
done

# ---- the table for people
echo "# job       id        state          cpu.time_total  TotalCPU  resident MB  MaxRSS MiB  peak+cache MB  mean CPU %  sacct CPU/Elapsed %  findings"
for n in "${NAMES[@]}"; do
  if [ -z "${JOB[$n]:-}" ] || [ ! -s "$T/$n.sacct.json" ]; then continue; fi
  f=$n.sacct.json
  printf '# %-9s %-9s %-14s %14s  %8s  %11s  %10s  %13s  %10s  %19s  %s\n' "$n" "${JOB[$n]}" "$(j "$f" .state)" \
    "$(j "$f" .cpu.time_total.time)" "${S_CPU[$n]}" "$(j "$f" .ram.used.amount)" "${S_RSS[$n]}" \
    "$(j "$f" .ram.peak.amount)" "$(j "$f" .cpu.avg_usage_job.usage)" \
    "$(sacct_avg "$n")" \
    "$(findings "$f")"
done

summary
[ "$failed" -eq 0 ]
