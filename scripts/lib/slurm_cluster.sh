# shellcheck shell=bash
# A real one-node Slurm 22.05 test cluster (Debian's slurmctld, slurmd,
# slurmdbd, munge, MariaDB) plus a Prometheus and a Pushgateway, all as plain
# processes under one temp directory, on free loopback ports, stopped by PID.
# The recipe and its gotchas: ../shared/reference/realstack/README.md §2.
#
#   source "$(dirname "$0")/../../scripts/lib/slurm_cluster.sh"
#   why=$(slurm_cluster_unavailable) && [ -z "$why" ] || skip "$why"
#   trap slurm_cluster_cleanup EXIT
#   slurm_cluster_start "$T" || bail "..."     # exports SLURM_CONF, sets SC_*
#   slurm_cluster_submit SCRIPT [SBATCH ARGS...]   # as SC_USER, prints the job id
#   slurm_cluster_wait_idle SECONDS            # squeue empty (bounded)
#   slurm_cluster_cleanup                       # also safe in an EXIT trap
#
# What it starts (each with its PID in SC_PIDS and its log under $SC_DIR):
#   munged       own key and socket ($SC_DIR/munge, mode 755 for the job user)
#   mariadbd     lib/mariadb.sh (MDB_PORT, MDB_SOCKET), user slurm/slurmpw
#   slurmdbd     StorageLoc slurm_acct_db
#   slurmctld    ClusterName $SC_CLUSTER (unique per run), FirstJobId random
#                so job ids do not collide with another cluster's in the
#                shared Prometheus label space
#   slurmd -N $SC_NODE  a node name of its own, so its cgroups live under
#                <ctrl>/slurm_$SC_NODE (Debian builds multiple-slurmd) and
#                never mix with another Slurm on this host; proctrack,
#                task and jobacct_gather cgroup, cgroup/v1, JobAcctGatherFrequency=2,
#                ConstrainCores/RAMSpace (and Devices when the devices
#                controller is there), and two stand-in GPUs
#                (character nodes 195:0 and 195:1 under $SC_DIR/fakedev) as
#                GRES gpu (realstack/gpu-gres.md)
#   pushgateway  lib/prometheus.sh's pushgateway_start, on SC_PGW_URL
#   prometheus   lib/prometheus.sh, scraping the Pushgateway every second
#                with honor_labels (PROM_URL)
#
# Environment knobs: SC_USER (default petricore-e2e; created with useradd -m
# when missing, never deleted), SC_GPUS (default 2; 0 = no GRES).
#
# Functions:
#   slurm_cluster_unavailable  prints why the cluster cannot run here (not
#                              root, one of the v1 controllers cpuacct,
#                              memory, cpuset, freezer missing or read-only,
#                              a binary missing); nothing when it can.
#   slurm_cluster_start DIR    everything above; status 1 with the failing
#                              daemon's log tail on stderr.
#   slurm_cluster_submit SCRIPT [ARGS...]
#                              sbatch --parsable as SC_USER from $SC_JOBDIR.
#   slurm_cluster_wait_idle SECONDS
#                              polls squeue until no job is left; status 1 on
#                              timeout.
#   slurm_cluster_sacct ID [FIELDS]
#                              sacct --parsable2 --noheader (bounded).
#   slurm_cluster_log_tail     the last lines of every daemon log (stderr).
#   slurm_cluster_nvml_standin FILE
#                              the file of the stand-in NVML
#                              (test/standin/nvml_standin.c) for the
#                              cluster's GPUs: minor numbers 0.. as the
#                              device nodes, idle (0 %, 0 MiB, 50 W); and
#                              FILE.d/, where jobs (any user) put drop-ins
#                              with their own processes and readings.
#   slurm_cluster_cleanup      scancel, stop every daemon by PID, kill what
#                              is left in the node's job cgroups and remove
#                              them, kill SC_USER's leftover processes.

_sc_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=SCRIPTDIR/mariadb.sh
source "$_sc_here/mariadb.sh"
# shellcheck source=SCRIPTDIR/prometheus.sh
source "$_sc_here/prometheus.sh"
# shellcheck source=SCRIPTDIR/process.sh
source "$_sc_here/process.sh"

SC_USER=${SC_USER:-petricore-e2e}
SC_GPUS=${SC_GPUS:-2}
SC_CGROUP_BASE=${SC_CGROUP_BASE:-/sys/fs/cgroup}
SC_DIR='' SC_NODE='' SC_CLUSTER='' SC_PGW_URL='' SC_JOBDIR=''
declare -A SC_PIDS=()

slurm_cluster_unavailable() {
  [ "$(id -u)" = 0 ] || { echo "needs root (slurmd, cgroups, a test user)"; return 0; }
  local tool c d
  for tool in munged mungekey munge slurmd slurmctld slurmdbd sbatch squeue scancel sacct sacctmgr scontrol sinfo \
    prometheus prometheus-pushgateway curl jq stress runuser useradd mknod python3; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || { echo "$tool is not installed"; return 0; }
  done
  local why
  why=$(mariadb_unavailable)
  [ -z "$why" ] || { echo "$why"; return 0; }
  for c in cpuacct memory cpuset freezer; do
    d=$SC_CGROUP_BASE/$c
    [ -f "$d/cgroup.procs" ] || { echo "no cgroup v1 $c hierarchy at $d (Slurm's cgroup/v2 cannot run here either)"; return 0; }
    [ -w "$d" ] || { echo "cgroup v1 $c hierarchy $d is not writable"; return 0; }
  done
  case $(head -n 1 /proc/self/cgroup) in
    0::*) echo "this host is on pure cgroup v2; the harness knows only Slurm's cgroup/v1"; return 0 ;;
  esac
}

_sc_bin() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

# _sc_wait SECONDS PID NAME COMMAND...: polls COMMAND every 0.2 s while PID lives.
_sc_wait() {
  local limit=$1 pid=$2 name=$3 end
  shift 3
  end=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name (pid $pid) died during start-up" >&2
      return 1
    fi
    if [ $SECONDS -ge $end ]; then
      echo "$name (pid $pid) not ready after $limit s" >&2
      return 1
    fi
    sleep 0.2
  done
}

slurm_cluster_nvml_standin() {  # FILE
  local i
  {
    echo "# $SC_GPUS stand-in GPUs of the Slurm test cluster, as the GRES device nodes number them"
    for i in $(seq 0 $((SC_GPUS - 1))); do
      printf 'gpu minor=%d uuid=GPU-%08d-0000-4000-8000-%012d name="Stand-in A100-SXM4-40GB" memory_total_mib=40960\n' \
        "$i" "$i" "$i"
      echo "sample gpu=$i util=0 memory_util=0 memory_used_mib=0 power_mw=50000"
    done
  } >"$1" || return 1
  mkdir -p "$1.d" && chmod 1777 "$1.d"
}

slurm_cluster_log_tail() {
  local f
  for f in "$SC_DIR"/log/*.log "$SC_DIR"/munge/munged.log "${MDB_DIR:-}/error.log" "$SC_DIR/pushgateway.log" \
    "$SC_DIR/prometheus/prometheus.log"; do
    [ -s "$f" ] || continue
    echo "--- last lines of $f:" >&2
    grep -v 'pmix\|debug' "$f" | tail -n 8 >&2
  done
}

_sc_write_configs() {
  # The devices controller is optional: without it GRES still sets
  # SLURM_JOB_GPUS, only the device nodes are not fenced (gpu-gres.md).
  SC_CONSTRAIN_DEVICES=no
  [ -f "$SC_CGROUP_BASE/devices/devices.allow" ] && [ -w "$SC_CGROUP_BASE/devices" ] && SC_CONSTRAIN_DEVICES=yes
  local cpus sockets cores threads mem host
  host=$(hostname -s)
  read -r cpus sockets cores threads mem < <(slurmd -C | head -n 1 | sed -E \
    's/.*CPUs=([0-9]+).*SocketsPerBoard=([0-9]+) CoresPerSocket=([0-9]+) ThreadsPerCore=([0-9]+) RealMemory=([0-9]+).*/\1 \2 \3 \4 \5/')
  [ -n "$mem" ] || { echo "slurmd -C gave no node description" >&2; return 1; }
  mem=$((mem * 90 / 100))  # below what slurmd detects, or the node is invalid
  local gres_node='' gres_types='' acct_tres=cpu,mem,node,billing
  if [ "$SC_GPUS" -gt 0 ]; then
    gres_node="Gres=gpu:$SC_GPUS"
    gres_types=GresTypes=gpu
    acct_tres=$acct_tres,gres/gpu
  fi
  cat >"$SC_DIR/etc/slurm.conf" <<EOF
ClusterName=$SC_CLUSTER
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$SC_CTLD_PORT
SlurmdPort=$SC_SLURMD_PORT
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SC_MUNGE_SOCKET
# the munge socket for connections to slurmdbd (realstack gotcha 1)
AccountingStoragePass=$SC_MUNGE_SOCKET
StateSaveLocation=$SC_DIR/state
SlurmdSpoolDir=$SC_DIR/spool/%n
SlurmctldPidFile=$SC_DIR/run/slurmctld.pid
SlurmdPidFile=$SC_DIR/run/slurmd-%n.pid
SlurmctldLogFile=$SC_DIR/log/slurmctld.log
SlurmdLogFile=$SC_DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
MpiDefault=none
ReturnToService=2
FirstJobId=$SC_FIRST_JOB
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
JobAcctGatherType=jobacct_gather/cgroup
JobAcctGatherFrequency=task=2
PrologFlags=Contain
$gres_types
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$SC_DBD_PORT
AccountingStorageTRES=$acct_tres
AccountingStoreFlags=job_script,job_env
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=5
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=60
Waittime=0
NodeName=$SC_NODE NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus Boards=1 SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$mem $gres_node State=UNKNOWN
PartitionName=debug Nodes=$SC_NODE Default=YES MaxTime=INFINITE State=UP
EOF
  cat >"$SC_DIR/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$SC_MUNGE_SOCKET
DbdHost=$host
DbdAddr=127.0.0.1
DbdPort=$SC_DBD_PORT
SlurmUser=root
DebugLevel=info
LogFile=$SC_DIR/log/slurmdbd.log
PidFile=$SC_DIR/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$SC_MDB_PORT
StorageUser=slurm
StoragePass=slurmpw
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$SC_DIR/etc/slurmdbd.conf"  # slurmdbd refuses a group/world readable file
  cat >"$SC_DIR/etc/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v1
CgroupMountpoint=$SC_CGROUP_BASE
CgroupAutomount=no
ConstrainCores=yes
ConstrainRAMSpace=yes
ConstrainDevices=$SC_CONSTRAIN_DEVICES
EOF
  if [ "$SC_GPUS" -gt 0 ]; then
    # Character nodes (regular files give no SLURM_JOB_GPUS: gpu-gres.md).
    local i
    mkdir -p "$SC_DIR/fakedev"
    for i in $(seq 0 $((SC_GPUS - 1))); do
      mknod -m 666 "$SC_DIR/fakedev/nvidia$i" c 195 "$i" || return 1
    done
    echo "Name=gpu File=$SC_DIR/fakedev/nvidia[0-$((SC_GPUS - 1))]" >"$SC_DIR/etc/gres.conf"
  fi
}

# The cluster's job user: created when missing, never deleted.
_sc_user() {
  id "$SC_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$SC_USER" || return 1
  SC_UID=$(id -u "$SC_USER")
}

_sc_start_munged() {
  local m=$SC_DIR/munge
  mkdir -p "$m" && chmod 755 "$m"  # the job user must reach the socket
  mungekey -c -k "$m/munge.key" >/dev/null 2>&1 || { echo "mungekey failed" >&2; return 1; }
  "$(_sc_bin munged)" -F --key-file="$m/munge.key" --socket="$SC_MUNGE_SOCKET" \
    --pid-file="$m/munged.pid" --log-file="$m/munged.log" --seed-file="$m/munged.seed" \
    </dev/null >"$m/munged.out" 2>&1 &
  SC_PIDS[munged]=$!
  # shellcheck disable=SC2317 # called through _sc_wait
  _sc_munge_ok() { munge -S "$SC_MUNGE_SOCKET" -n | unmunge -S "$SC_MUNGE_SOCKET"; }
  _sc_wait 10 "${SC_PIDS[munged]}" munged _sc_munge_ok || { tail -n 5 "$m/munged.log" "$m/munged.out" >&2; return 1; }
}

_sc_start_daemon() {  # NAME READY-SECONDS READY-COMMAND... ; the daemon runs in the foreground
  local name=$1 limit=$2 args=(-D)
  shift 2
  case $name in
    slurmctld) args+=(-i) ;;
    slurmd) args+=(-N "$SC_NODE") ;;
  esac
  "$(_sc_bin "$name")" "${args[@]}" </dev/null >"$SC_DIR/log/$name.stdout" 2>&1 &
  SC_PIDS[$name]=$!
  if ! _sc_wait "$limit" "${SC_PIDS[$name]}" "$name" "$@"; then
    grep -hv 'pmix' "$SC_DIR/log/$name.stdout" "$SC_DIR/log/$name.log" 2>/dev/null | tail -n 12 >&2
    return 1
  fi
}

_sc_ctld_up() { timeout 5 scontrol ping | grep -q UP; }
_sc_node_idle() { timeout 5 sinfo -h -n "$SC_NODE" -o %T | grep -qx idle; }

slurm_cluster_start() {
  SC_DIR=$1
  local host
  host=$(hostname -s)
  SC_NODE=pce2e$((RANDOM % 90 + 10))
  SC_CLUSTER=pce2e$(date +%s | tail -c 6)$((RANDOM % 100))
  SC_FIRST_JOB=$(( (RANDOM % 9000 + 1000) * 1000 ))
  read -r SC_CTLD_PORT SC_SLURMD_PORT SC_DBD_PORT SC_PGW_PORT PROM_PORT SC_MDB_PORT <<<"$(free_ports 6)"
  [ -n "${SC_MDB_PORT:-}" ] || { echo "could not find free ports" >&2; return 1; }
  SC_PGW_URL=http://127.0.0.1:$SC_PGW_PORT
  SC_MUNGE_SOCKET=$SC_DIR/munge/munge.socket.2
  SC_JOBDIR=$SC_DIR/jobs
  export SLURM_CONF=$SC_DIR/etc/slurm.conf
  mkdir -p "$SC_DIR"/{etc,state,spool,log,run} || return 1
  chmod 755 "$SC_DIR" "$SC_DIR/etc"  # the job user reads slurm.conf and reaches the munge socket
  _sc_user || { echo "could not create the test user $SC_USER" >&2; return 1; }
  mkdir -p "$SC_JOBDIR" && chown "$SC_USER:" "$SC_JOBDIR" || return 1
  _sc_write_configs || return 1

  _sc_start_munged || return 1
  mariadb_start "$SC_DIR/mariadb" "$SC_MDB_PORT" || return 1
  SC_PIDS[mariadbd]=$MDB_PID
  # slurmdbd logs in over TCP; with --skip-name-resolve that is 'slurm'@'127.0.0.1'.
  mariadb_root -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw';
    CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'slurmpw';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';" || return 1

  # sacctmgr and scontrol retry for minutes when something is wrong: timeout 5.
  _sc_start_daemon slurmdbd 30 timeout 5 sacctmgr -n show cluster || return 1
  _sc_start_daemon slurmctld 30 _sc_ctld_up || return 1
  # slurmctld registers the cluster itself; an account and the users.
  local _
  for _ in $(seq 1 20); do
    timeout 5 sacctmgr -n -P list cluster format=cluster 2>/dev/null | grep -qx "$SC_CLUSTER" && break
    sleep 0.5
  done
  timeout 10 sacctmgr -i add account research Description=research Organization=petricore >/dev/null 2>&1 || true
  timeout 10 sacctmgr -i add user "$SC_USER" Account=research >/dev/null 2>&1 || true
  timeout 10 sacctmgr -i add user root Account=research >/dev/null 2>&1 || true
  _sc_start_daemon slurmd 30 _sc_node_idle || return 1

  # The monitoring stack.
  pushgateway_start "$SC_DIR" "$SC_PGW_PORT" || return 1
  SC_PIDS[pushgateway]=$PGW_PID
  prom_pushgateway_config "$SC_DIR/prometheus/prometheus.yml" "127.0.0.1:$SC_PGW_PORT" 1s
  prom_start "$SC_DIR/prometheus" "$SC_DIR/prometheus/tsdb" "$SC_DIR/prometheus/prometheus.yml" || return 1
  SC_PIDS[prometheus]=$PROM_PID
  echo "# cluster $SC_CLUSTER node $SC_NODE (cgroups slurm_$SC_NODE, first job id $SC_FIRST_JOB):" \
    "slurmctld :$SC_CTLD_PORT slurmd :$SC_SLURMD_PORT slurmdbd :$SC_DBD_PORT mariadb :$MDB_PORT" \
    "pushgateway $SC_PGW_URL prometheus $PROM_URL; SLURM_CONF=$SLURM_CONF"
}

slurm_cluster_submit() {  # SCRIPT [SBATCH ARGS...]: prints the job id
  local script=$1
  shift
  (cd "$SC_JOBDIR" && timeout 20 runuser -u "$SC_USER" -- env SLURM_CONF="$SLURM_CONF" \
    sbatch --parsable "$@" "$script") | cut -d';' -f1
}

slurm_cluster_wait_idle() {  # SECONDS
  local end=$((SECONDS + $1)) out
  while :; do
    out=$(timeout 5 squeue -h -o %i 2>/dev/null) && [ -z "$out" ] && return 0
    [ $SECONDS -ge $end ] && return 1
    sleep 1
  done
}

slurm_cluster_sacct() {  # ID [FIELDS]
  timeout 10 sacct -j "$1" --parsable2 --noheader \
    --format="${2:-JobID,State,ExitCode,ElapsedRaw,AllocCPUS,ReqMem,TotalCPU,MaxRSS,Start,End}"
}

# Every process in the node's job cgroups (slurmstepd and job processes),
# killed by PID; then the cgroups, leaf first.
_sc_remove_cgroups() {
  [ -n "$SC_NODE" ] || return 0
  local _ d left pid
  for _ in $(seq 1 50); do
    left=0
    for d in "$SC_CGROUP_BASE"/*/slurm_"$SC_NODE"; do
      [ -d "$d" ] || continue
      left=1
      find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u |
        while read -r pid; do kill -KILL "$pid" 2>/dev/null; done
      find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    [ "$left" = 0 ] && return 0
    sleep 0.1
  done
  for d in "$SC_CGROUP_BASE"/*/slurm_"$SC_NODE"; do
    [ -d "$d" ] && echo "# cgroups left under $d" >&2
  done
  return 0
}

slurm_cluster_cleanup() {
  if [ -n "${SC_PIDS[slurmctld]:-}" ] && kill -0 "${SC_PIDS[slurmctld]}" 2>/dev/null; then
    timeout 10 scancel --full -u "$SC_USER" >/dev/null 2>&1
    slurm_cluster_wait_idle 15 || echo "# jobs still queued at cleanup" >&2
  fi
  local name
  for name in slurmd slurmctld slurmdbd; do
    stop_pid "${SC_PIDS[$name]:-}"
    SC_PIDS[$name]=''
  done
  _sc_remove_cgroups
  prom_stop
  SC_PIDS[prometheus]=''
  # SC_PIDS[pushgateway] is what counts: a caller may have restored it in
  # another shell (scripts/demo stop), where PGW_PID was never set.
  PGW_PID=${SC_PIDS[pushgateway]:-}
  pushgateway_stop
  SC_PIDS[pushgateway]=''
  stop_pid "${SC_PIDS[munged]:-}"
  SC_PIDS[munged]=''
  mariadb_stop
  SC_PIDS[mariadbd]=''
  # The job user belongs to these tests: whatever it still runs goes, by PID.
  if [ -n "${SC_UID:-}" ] && [ "$SC_UID" != 0 ]; then
    local pid
    for pid in $(pgrep -U "$SC_UID" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  fi
  return 0
}
