#!/bin/bash
# Runs INSIDE the test VM (petricore-vm-test.service, as root, once Slurm,
# Prometheus and petricore-collect are up): submits the real jobs, samples the
# kernel's own counters of every job cgroup while they run, and writes what
# the host checks into OUT (read back from the image after poweroff by
# test/vm/vm_test.sh). Progress lines also go to the second serial port, so
# the host sees how far a run got even when it is stopped.
#
# CPU work in the guest is ~17x slower under TCG: the jobs are short and the
# sampler uses shell builtins only (no fork per reading).
#
# OUT/
#   phases.tsv          phase name, seconds
#   facts.txt           kernel, systemd, Slurm, cgroup controllers
#   sandbox.txt         petricore-collect's capabilities, cgroup, memory.max
#   jobs.tsv            job name, job id
#   kernel.tsv          per job and second: cpu.stat, memory.*, io.stat, pids by leaf kind
#   layout.txt          every directory under slurmstepd.scope seen, and the comms and pids of each leaf
#   layout.raw          the same, every sample (4 s apart), unsorted
#   sacct-NAME.txt      sacct --parsable2 of the job and its steps
#   report-NAME.json    petricore report --json --accounting sacct
#   prom-NAME.txt       Prometheus: the job's max of some jobs_* series
#   metrics.txt         petricore's /metrics at the end (self-metrics)
#   collect-bench.txt   collect_bench measure on this node while jobs run
#   journal.txt         the journal's last lines; slurm*.log tails
set -u
OUT=${1:-/var/lib/petricore-vm/out}
mkdir -p "$OUT"
USER_NAME=alice
# slurmstepd's scope: Debian builds Slurm with multiple-slurmd support, so it
# is <node>_slurmstepd.scope (set once slurmd is up).
SCOPE=''
PROM=http://localhost:9090
export SLURM_TIME_FORMAT=standard

say() {
  echo "$(date +%s) $*" >>"$OUT/progress.txt"
  echo "petricore-vm: $*" >/dev/ttyS1 2>/dev/null
}
PHASE='' PHASE_T0=0
phase() {
  [ -n "$PHASE" ] && printf '%s\t%s\n' "$PHASE" $((SECONDS - PHASE_T0)) >>"$OUT/phases.tsv"
  PHASE=$1 PHASE_T0=$SECONDS
  [ -n "$PHASE" ] && say "phase $PHASE"
}
SAMPLER_PID='' LAYOUT_PID=''
finish() {
  local rc=$?
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null
  [ -n "$LAYOUT_PID" ] && kill "$LAYOUT_PID" 2>/dev/null
  phase ''
  journalctl -b --no-pager -o short-monotonic 2>/dev/null | tail -n 300 >"$OUT/journal.txt"
  for f in /var/log/slurm/*.log; do
    [ -f "$f" ] && tail -n 60 "$f" >"$OUT/$(basename "$f").tail"
  done
  systemctl --failed --no-pager >"$OUT/failed-units.txt" 2>&1
  say "end status $rc"
  sync
}
trap finish EXIT
fail() { say "FAILED: $*"; echo "$*" >"$OUT/failure.txt"; exit 1; }

# wait_until SECONDS CMD...: every 2 s (each try costs CPU under TCG).
wait_until() {
  local end=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -ge $end ] && return 1
    sleep 2
  done
}

# ---- the node is up
phase services
# active, or failed for good (no use waiting then)
settled() { systemctl is-active --quiet "$1" || systemctl is-failed --quiet "$1"; }
for u in munge mariadb slurmdbd slurmctld slurmd prometheus petricore-collect; do
  wait_until 300 settled "$u"
  systemctl is-active --quiet "$u" ||
    fail "$u is not active: $(systemctl status --no-pager "$u" 2>&1 | tail -n 8; journalctl -b -u "$u" --no-pager | tail -n 15)"
done
node_idle() { timeout 20 sinfo -h -o %T | grep -qx idle; }
wait_until 300 node_idle || fail "the node is not idle: $(timeout 20 sinfo 2>&1)"
cluster_known() { timeout 20 sacctmgr -n -P list cluster format=cluster | grep -qx vmcluster; }
wait_until 120 cluster_known || fail "slurmdbd does not know the cluster: $(timeout 20 sacctmgr -n list cluster 2>&1)"
timeout 60 sacctmgr -i add account research Description=research Organization=petricore >/dev/null 2>&1
timeout 60 sacctmgr -i add user "$USER_NAME" Account=research >/dev/null 2>&1
for SCOPE in /sys/fs/cgroup/system.slice/*slurmstepd.scope; do break; done
[ -d "$SCOPE" ] || fail "slurmd made no slurmstepd scope under /sys/fs/cgroup/system.slice"
prom_up() { curl -sf "$PROM/api/v1/query?query=up" | grep -q '"1"\]'; }
wait_until 120 prom_up || fail "Prometheus does not scrape petricore: $(curl -s "$PROM/api/v1/targets" | head -c 600)"

{
  echo "scope ${SCOPE#/sys/fs/cgroup/}"
  echo "kernel $(uname -r)"
  echo "systemd $(systemctl --version | head -n 1)"
  echo "slurm $(sinfo -V)"
  echo "cgroupfs $(stat -fc %T /sys/fs/cgroup)"
  echo "controllers $(cat /sys/fs/cgroup/cgroup.controllers)"
  echo "system.slice subtree_control $(cat /sys/fs/cgroup/system.slice/cgroup.subtree_control)"
  echo "pid1 $(cat /proc/1/comm)"
  echo "slurmdbd restarts $(systemctl show -p NRestarts --value slurmdbd)"
  echo "self cgroup $(cat /proc/self/cgroup)"
  echo "prometheus $(prometheus --version 2>&1 | head -n 1)"
  echo "petricore $(petricore --version 2>&1 | head -n 1)"
  echo "package $(dpkg-query -W -f='${Package} ${Version} ${Status}' petricore 2>&1)"
  echo "binary-package $(dpkg-query -S /usr/bin/petricore 2>&1)"
  echo "user petricore $(getent passwd petricore)"
  echo "collect unit $(systemctl show -p FragmentPath --value petricore-collect) $(systemctl is-enabled petricore-collect 2>&1)"
  echo "cpus $(nproc)"
} >"$OUT/facts.txt"

# ---- petricore-collect's sandbox as the kernel sees it
pid=$(systemctl show -p MainPID --value petricore-collect)
cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
{
  echo "pid $pid"
  grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' "/proc/$pid/status"
  echo "cgroup $cg"
  echo "memory.max $(cat "/sys/fs/cgroup$cg/memory.max")"
  echo "memory.peak $(cat "/sys/fs/cgroup$cg/memory.peak" 2>/dev/null)"
  echo "memory.events $(tr '\n' ' ' <"/sys/fs/cgroup$cg/memory.events")"
  echo "parent subtree_control $(cat "/sys/fs/cgroup${cg%/*}/cgroup.subtree_control")"
  systemctl show -p MemoryMax -p CapabilityBoundingSet -p NoNewPrivileges -p ProtectSystem petricore-collect
} >"$OUT/sandbox.txt"

# ---- the kernel's counters of every job cgroup, every second
sampler() {
  local j id line a u sy pk cur anon shm rb wb n_user n_slurm f k v sl p user_pids
  # slurmstepd's CPU: the last usage_usec seen of each step_*/slurm leaf
  # (a step's leaf goes when the step ends; its time stays in the job's).
  declare -A slurm_usec=()
  while :; do
    for j in "$SCOPE"/job_*; do
      [ -d "$j" ] || continue
      id=${j##*/job_}
      u=0 a=0 sy=0 anon=0 shm=0 rb=0 wb=0 n_user=0 n_slurm=0 user_pids=
      while read -r k v; do
        case $k in usage_usec) a=$v ;; user_usec) u=$v ;; system_usec) sy=$v ;; esac
      done 2>/dev/null <"$j/cpu.stat" || continue
      read -r pk <"$j/memory.peak" 2>/dev/null || pk=0
      read -r cur <"$j/memory.current" 2>/dev/null || cur=0
      while read -r k v; do
        case $k in anon) anon=$v ;; shmem) shm=$v ;; esac
      done 2>/dev/null <"$j/memory.stat"
      while read -r line; do
        for f in $line; do
          case $f in rbytes=*) rb=$((rb + ${f#rbytes=})) ;; wbytes=*) wb=$((wb + ${f#wbytes=})) ;; esac
        done
      done 2>/dev/null <"$j/io.stat"  # only when Slurm enables io for the job
      for f in "$j"/step_*/user/task_*/cgroup.procs "$j"/step_*/user/cgroup.procs; do
        [ -f "$f" ] || continue
        while read -r p; do n_user=$((n_user + 1)) user_pids="$user_pids,$p"; done <"$f"
      done
      for f in "$j"/step_*/slurm/cgroup.procs; do
        [ -f "$f" ] || continue
        while read -r _; do n_slurm=$((n_slurm + 1)); done <"$f"
        while read -r k v; do
          [ "$k" = usage_usec ] && slurm_usec[${f%/cgroup.procs}]=$v
        done 2>/dev/null <"${f%cgroup.procs}cpu.stat"
      done
      sl=0
      for f in "${!slurm_usec[@]}"; do
        [[ $f == "$j"/* ]] && sl=$((sl + ${slurm_usec[$f]}))
      done
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$EPOCHSECONDS" "$id" "$a" "$u" "$sy" "$pk" "$cur" \
        "$anon" "$shm" "$rb" "$wb" "$n_user" "$n_slurm" "$sl" "${user_pids#,}" >>"$OUT/kernel.tsv"
    done
    sleep 1
  done
}
# The directories Slurm makes, and who is in each leaf (every 4 s): the
# path, the comms and the pids (in the same order; "?" for a process gone
# before its comm was read).
layout_watch() {
  local d p c comm pids
  while :; do
    if [ -d "$SCOPE" ]; then
      find "$SCOPE" -type d | while read -r d; do
        c='' pids=''
        while read -r p; do
          comm='?'
          read -r comm <"/proc/$p/comm" 2>/dev/null
          c="$c ${comm:-?}" pids="$pids $p"
        done <"$d/cgroup.procs"
        printf '%s\t%s\t%s\n' "${d#/sys/fs/cgroup/}" "${c# }" "${pids# }"
      done >>"$OUT/layout.raw"
    fi
    sleep 4
  done
}
printf 'epoch\tjob\tusage_usec\tuser_usec\tsystem_usec\tmemory_peak\tmemory_current\tanon\tshmem\trbytes\twbytes\tpids_user\tpids_slurm\tslurm_usec\tuser_pids\n' >"$OUT/kernel.tsv"
sampler &
SAMPLER_PID=$!
layout_watch &
LAYOUT_PID=$!

# ---- the jobs
phase jobs
JD=/home/$USER_NAME
job_script() {  # NAME BODY
  printf '#!/bin/bash\n%s\n' "$2" >"$JD/$1.sh"
  chmod 755 "$JD/$1.sh"
  chown "$USER_NAME:" "$JD/$1.sh"
}
job_script cpu2 'stress --cpu 2 --timeout 25s'
job_script serial 'stress --cpu 1 --timeout 25s'
# Each step lives past one full pass (the packaged interval, 15 s): with
# 12 s steps a run was seen where no pass fell in a step (resident peak
# 2.5 MB, 3 processes, against the kernel's 5.0 MiB and 6).
job_script steps2 'srun stress --cpu 1 --timeout 20s
srun stress --cpu 1 --timeout 20s'
job_script tasks2 'srun stress --cpu 1 --timeout 20s'
# shellcheck disable=SC2016 # expanded in the job
# It lives past one full pass (the packaged interval, 15 s) before the
# kill: a job shorter than the interval may never be sampled (its figures
# then come from accounting), and the checks compare the collector's.
job_script oom 'sleep 20
stress --vm 1 --vm-bytes 300M --vm-keep --timeout 20s
rc=$?
sleep 4
exit $rc'
# 20 files of 1 MiB in scratch, written with fsync and held open for 20 s.
# shellcheck disable=SC2016 # expanded in the job
job_script scratch 'mkdir -p /scratch/$SLURM_JOB_ID && cd /scratch/$SLURM_JOB_ID || exit 1
python3 - <<EOF
import os, time
files = []
for i in range(20):
    f = open("f%02d" % i, "wb")
    f.write(b"x" * 1048576)
    f.flush()
    os.fsync(f.fileno())
    files.append(f)
# the kernel count of the I/O of this process, for the host to compare
print(open("/proc/self/io").read(), flush=True)
time.sleep(20)
EOF'

declare -A JOB=()
submit() {  # NAME ARGS...
  local name=$1 id
  shift
  id=$(cd "$JD" && timeout 60 runuser -u "$USER_NAME" -- sbatch --parsable -J "$name" -o "$JD/$name-%j.out" --time=10 "$@" "$JD/$name.sh")
  id=${id%%;*}
  if [[ "$id" =~ ^[0-9]+$ ]]; then JOB[$name]=$id; printf '%s\t%s\n' "$name" "$id" >>"$OUT/jobs.tsv"; else say "sbatch $name failed"; fi
}
submit cpu2 -c 2 --mem=256M
submit serial -c 2 --mem=256M
submit steps2 -c 1 --mem=256M
submit tasks2 -n 2 -c 1 --mem-per-cpu=128M
submit oom -c 1 --mem=100M
submit scratch -c 1 --mem=256M
# The interactive one: srun straight from a shell, no batch step.
(cd "$JD" && timeout 900 runuser -u "$USER_NAME" -- srun -J interactive -c 1 --mem=128M --time=10 \
  stress --cpu 1 --timeout 15s >"$JD/interactive.out" 2>&1) &
SRUN_PID=$!
say "submitted: $(tr '\n' ' ' <"$OUT/jobs.tsv")"
# The controllers Slurm turns on for its jobs, once the first job is there.
first_job() { compgen -G "$SCOPE/job_*" >/dev/null; }
wait_until 120 first_job
echo "job controllers $(cat "$SCOPE/cgroup.subtree_control" 2>/dev/null)" >>"$OUT/facts.txt"

# The collector's cost per pass on this real v2 node, against a raw-read
# baseline of the same files in the same run (test/bench/README.md), while
# the first jobs run. 40 of each (a pass is 10-30 ms here under TCG), so the
# ratio is a mean over the jobs' changing activity, not of a few passes.
bench=/usr/local/libexec/petricore-test/collect_bench
if [ -x "$bench" ]; then
  sleep 5
  say "collect bench"
  timeout 300 "$bench" measure --passes 40 --warmup 2 >"$OUT/collect-bench.txt" 2>&1 ||
    echo "collect_bench exit $?" >>"$OUT/collect-bench.txt"
fi
# The daemon's open files while the jobs run: the /proc and cgroup files it
# keeps open between passes (src/collect/held_files.hpp), and its limit.
{
  echo "nofile $(awk '/^Max open files/ { print $4, $5 }' "/proc/$pid/limits")"
  echo "held-proc $(find "/proc/$pid/fd" -lname '/proc/*' 2>/dev/null | wc -l)"
  echo "held-cgroup $(find "/proc/$pid/fd" -lname '/sys/fs/cgroup/*' 2>/dev/null | wc -l)"
} >>"$OUT/sandbox.txt"

queue_empty() { [ -z "$(timeout 20 squeue -h -o %i)" ]; }
wait_until 900 queue_empty || fail "jobs still queued after 900 s: $(timeout 20 squeue 2>&1 | tr '\n' ';')"
wait "$SRUN_PID"
echo "srun exit $?" >>"$OUT/interactive.txt"
id=$(timeout 30 sacct -n -X -P --name=interactive -u "$USER_NAME" -o JobID | tail -n 1)
[ -n "$id" ] && JOB[interactive]=$id && printf 'interactive\t%s\n' "$id" >>"$OUT/jobs.tsv"

phase accounting
ended() {
  local n line
  for n in "${!JOB[@]}"; do
    line=$(timeout 20 sacct -j "${JOB[$n]}" -X -n -P -o State,End)
    case $line in RUNNING* | PENDING* | *Unknown | "") return 1 ;; esac
  done
}
wait_until 120 ended || say "sacct has not every end after 120 s"
# The analysis reads 30 s past a job's end; the last job's readings must be in.
last=0
for n in "${!JOB[@]}"; do
  e=$(date -d "$(timeout 20 sacct -j "${JOB[$n]}" -X -n -P -o End)" +%s 2>/dev/null || echo 0)
  [ "$e" -gt "$last" ] && last=$e
done
left=$((last + 40 - $(date +%s)))
[ "$left" -gt 0 ] && sleep "$left"
kill "$SAMPLER_PID" "$LAYOUT_PID" 2>/dev/null
SAMPLER_PID='' LAYOUT_PID=''
sort -u "$OUT/layout.raw" >"$OUT/layout.txt"

phase reports
printf '[rules]\nmin-runtime = 10\n[prometheus]\nurl = "%s"\n' "$PROM" >/root/vm-report.toml
prom_max() {  # ID METRIC
  curl -sf --get "$PROM/api/v1/query" --data-urlencode "query=max(max_over_time($2{slurm_job=\"$1\"}[2h]))" |
    jq -r '.data.result[0].value[1] // "null"'
}
for n in "${!JOB[@]}"; do
  id=${JOB[$n]}
  timeout 60 sacct -j "$id" --parsable2 \
    -o JobID,JobName,State,ExitCode,ElapsedRaw,AllocCPUS,ReqMem,TotalCPU,UserCPU,SystemCPU,MaxRSS,Start,End \
    >"$OUT/sacct-$n.txt" 2>&1
  cp "$JD/$n-$id.out" "$OUT/jobout-$n.txt" 2>/dev/null
  timeout 300 petricore --config /root/vm-report.toml report "$id" --json --accounting sacct \
    >"$OUT/report-$n.json" 2>"$OUT/report-$n.err"
  for m in jobs_cpu_time_total jobs_memory_peak_mb jobs_rss jobs_opened_files jobs_spawned_processes jobs_write_mb \
    jobs_uses_scratch jobs_cpus_allocated; do
    printf '%s\t%s\n' "$m" "$(prom_max "$id" "$m")"
  done >"$OUT/prom-$n.txt"
done
curl -sf http://localhost:9966/metrics | grep -E '^petricore_' >"$OUT/metrics.txt"
echo "memory.peak $(cat "/sys/fs/cgroup$cg/memory.peak" 2>/dev/null)" >>"$OUT/sandbox.txt"
systemctl is-active petricore-collect >>"$OUT/sandbox.txt"
exit 0
