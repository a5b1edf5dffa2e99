#!/usr/bin/env bash
# Real-kernel test of `petricore collect` (ARCHITECTURE.md §4 and §7): builds
# Slurm-layout v1 job cgroups (root slurm_kt<pid>, uid_0/job_J/step_batch[/task_0]
# in cpuacct, memory, cpuset and freezer), puts real processes of known
# behaviour in them and checks what the collector exports.
#
#   job A  busy loop, a 6-thread process, a process holding 20 regular files
#          (5 under the scratch dir), a process that touched 200 MiB, and a
#          "batch shell" that ran a 32 MiB fsync'd writer as its child and then
#          exec'd into an idle process; SLURM_JOB_GPUS=0,10, account physics
#   job B  an idle process plus a 32 MiB writer whose parent is OUTSIDE the job
#          (the test itself), so only a collector that saw it alive can count it
#   job C  leftover empty job cgroup: must not be exported
#   job D  one process holding a directory fd and one regular file; killed at
#          the end: its series must disappear at the next pass
#
# Usage: real_kernel_test.sh PATH-TO-PETRICORE. Exit 77 (skipped) when not
# root or the v1 hierarchies are missing or read-only. The job cgroups come
# from scripts/lib/slurm-cgroup.sh.
set -uo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/slurm-cgroup.sh
source "$(dirname "$0")/../../scripts/lib/slurm-cgroup.sh"

petricore=${1:?usage: real_kernel_test.sh PATH-TO-PETRICORE}
petricore=$(realpath "$petricore")
CG=$SLURM_CGROUP_BASE

skip() { echo "SKIPPED: $1"; exit 77; }
why=$(slurm_cgroup_unavailable)
[ -z "$why" ] || skip "$why"
command -v cc >/dev/null || skip "no C compiler (cc) to build the test processes"

ROOT=slurm_kt$$
BASE=$(( $$ * 100 ))
JA=$((BASE + 1)) JB=$((BASE + 2)) JC=$((BASE + 3)) JD=$((BASE + 4))
# Disk-backed: write_bytes stays 0 on tmpfs. /var/tmp, else the cwd (the build dir).
T=$(mktemp -d /var/tmp/petricore-kt.XXXXXX) || skip "cannot create a temp dir in /var/tmp"
case $(stat -f -c %T "$T") in
  tmpfs | ramfs) rmdir "$T"; T=$(mktemp -d "$PWD/petricore-kt.XXXXXX") || skip "no disk-backed temp dir" ;;
esac
SCR=$T/scratch
READY=$T/ready
mkdir -p "$SCR" "$READY" "$T/files" "$T/work"
PIDS=()
DAEMON=

cleanup() {
  local p c
  exec 2>/dev/null  # no "Killed" job notices
  if [ -n "$DAEMON" ]; then
    kill -TERM "$DAEMON" 2>/dev/null
    for _ in $(seq 20); do kill -0 "$DAEMON" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$DAEMON" 2>/dev/null
  fi
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  # Also kills everything still in our cgroups (e.g. a child of a killed
  # process) and waits for it to exit.
  slurm_remove_root "$ROOT"
  wait 2>/dev/null
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    [ -d "$CG/$c/$ROOT" ] && echo "# warning: could not remove $CG/$c/$ROOT"
  done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the processes ---------------------------------------------------------
cat >"$T/kt_worker.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(const char *what) { perror(what); exit(2); }

/* Tells the test this process is ready: writes its pid to the ready file. */
static void ready(const char *path) {
  char tmp[4096], text[32];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die(tmp);
  int n = snprintf(text, sizeof text, "%d\n", (int)getpid());
  if (write(fd, text, (size_t)n) != n) die("write");
  close(fd);
  if (rename(tmp, path) != 0) die("rename");
}

static void *sleeper(void *arg) { (void)arg; for (;;) pause(); return NULL; }

static void open_files(const char *dir, int n, const char *tag) {
  for (int i = 0; i < n; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%02d", dir, tag, i);
    if (open(path, O_RDWR | O_CREAT, 0644) < 0) die(path);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: kt_worker MODE READY-FILE ARGS...\n"); return 2; }
  const char *mode = argv[1], *ready_file = argv[2];
  char name[16];
  snprintf(name, sizeof name, "kt_%s", mode);
  prctl(PR_SET_NAME, name);
  if (!strcmp(mode, "busy")) {          /* one CPU fully busy */
    ready(ready_file);
    volatile unsigned long x = 0;
    for (;;) ++x;
  } else if (!strcmp(mode, "threads")) { /* THREADS threads in all, main included */
    int total = atoi(argv[3]);
    for (int i = 1; i < total; ++i) {
      pthread_t t;
      if (pthread_create(&t, NULL, sleeper, NULL) != 0) die("pthread_create");
    }
    ready(ready_file);
  } else if (!strcmp(mode, "files")) {   /* files DIR1 N1 DIR2 N2 */
    open_files(argv[3], atoi(argv[4]), "f");
    open_files(argv[5], atoi(argv[6]), "s");
    /* Not new regular-file paths: the same file again, a dup, a pipe, a
       socket pair, a device, a memfd. */
    char again[4096];
    snprintf(again, sizeof again, "%s/f00", argv[3]);
    int fd = open(again, O_RDONLY);
    if (fd < 0 || dup(fd) < 0) die("again");
    int p[2], s[2];
    if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, s) != 0) die("pipe");
    if (open("/dev/zero", O_RDONLY) < 0) die("/dev/zero");
    if (memfd_create("kt", 0) < 0) die("memfd_create");
    ready(ready_file);
  } else if (!strcmp(mode, "mem")) {     /* mem MIB: touch MIB of anonymous memory */
    size_t bytes = (size_t)atol(argv[3]) << 20;
    char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) die("mmap");
    for (size_t i = 0; i < bytes; i += 4096) m[i] = 1;
    ready(ready_file);
  } else if (!strcmp(mode, "write")) {   /* write FILE MIB: fsync, linger 1.5 s, exit */
    size_t mib = (size_t)atol(argv[4]);
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) die(argv[3]);
    for (size_t i = 0; i < mib; ++i)
      if (write(fd, block, sizeof block) != (ssize_t)sizeof block) die("write");
    if (fsync(fd) != 0) die("fsync");
    close(fd);
    ready(ready_file);
    usleep(1500 * 1000);  /* seen alive, with its bytes, by a 0.5 s collector */
    return 0;
  } else if (!strcmp(mode, "dirfd")) {   /* dirfd DIR FILE: a directory fd and one file */
    if (open(argv[3], O_RDONLY | O_DIRECTORY) < 0) die(argv[3]);
    if (open(argv[4], O_RDWR | O_CREAT, 0644) < 0) die(argv[4]);
    ready(ready_file);
  } else if (!strcmp(mode, "idle")) {
    ready(ready_file);
  } else {
    fprintf(stderr, "kt_worker: unknown mode %s\n", mode);
    return 2;
  }
  for (;;) pause();
}
EOF
if ! cc -O1 -Wall -Wextra -pthread -o "$T/kt_worker" "$T/kt_worker.c" 2>"$T/cc.log"; then
  echo "Bail out! cannot build the test processes: $(cat "$T/cc.log")"
  exit 1
fi
W=$T/kt_worker

# --- the cgroups -------------------------------------------------------------
# make_job J: uid_0/job_J/step_batch/task_0 in cpuacct and memory,
# uid_0/job_J/step_batch in cpuset and freezer; cpuset.cpus/mems copied from
# the parent at every level; a 1024 MiB job memory limit.
make_job() { JOB_CPUS='' JOB_MEMORY_LIMIT=1024M slurm_make_job "$ROOT" 0 "$1" batch; }

# launch J READY-NAME CMD...: runs CMD in job J's cgroups with the job's
# Slurm environment, stdio on /dev/null (so no regular file is held by
# accident: stderr goes to a file only until the exec), cwd outside the
# scratch dir; appends its pid to PIDS.
launch() {
  local j=$1 name=$2
  shift 2
  (
    slurm_add_pid "$ROOT" 0 "$j" batch "$BASHPID" || exit 97
    cd "$T/work" || exit 97
    export SLURM_JOB_ID=$j SLURM_JOB_GPUS=0,10 SLURM_JOB_ACCOUNT=physics
    exec "$@" 2>/dev/null
  ) </dev/null >/dev/null 2>"$T/launch-$name.err" &
  PIDS+=($!)
}

# wait_ready NAME...: until each worker wrote its ready file (bounded).
wait_ready() {
  local name deadline=$((SECONDS + 15))
  for name in "$@"; do
    while [ ! -s "$READY/$name" ]; do
      if [ $SECONDS -ge $deadline ]; then
        echo "Bail out! worker '$name' not ready after 15 s: $(cat "$T"/launch-*.err 2>/dev/null | head -5)"
        exit 1
      fi
      sleep 0.05
    done
  done
}

pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }

# metric FILE NAME JOB [LABEL-SUBSTRING]: the value of the first matching series.
metric() {
  awk -v n="$2{" -v j="slurm_job=\"$3\"" -v l="${4:-}" \
    'index($0, n) == 1 && index($0, j) && (l == "" || index($0, l)) { print $NF; exit }' "$1"
}
# series_count FILE NAME JOB: how many series of NAME the job has.
series_count() {
  awk -v n="$2{" -v j="slurm_job=\"$3\"" 'index($0, n) == 1 && index($0, j) { k++ } END { print k + 0 }' "$1"
}
check_eq() {  # DESCRIPTION GOT EXPECTED
  if [ -n "$2" ] && awk -v g="$2" -v e="$3" 'BEGIN { exit !(g + 0 == e + 0) }'; then ok "$1 == $3"
  else not_ok "$1 (expected $3, got ${2:-nothing})"; fi
}
check_range() {  # DESCRIPTION GOT LOW HIGH
  if [ -n "$2" ] && awk -v g="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(g + 0 >= lo + 0 && g + 0 <= hi + 0) }'; then
    ok "$1 = $2 in [$3, $4]"
  else not_ok "$1 (expected in [$3, $4], got ${2:-nothing})"; fi
}
check_absent() {  # DESCRIPTION FILE JOB
  if grep -qF "slurm_job=\"$3\"" "$2"; then not_ok "$1 (expected no series, got $(grep -cF "slurm_job=\"$3\"" "$2"))"
  else ok "$1"; fi
}

for j in $JA $JB $JC $JD; do
  make_job "$j" 2>"$T/mkjob.err" || skip "cannot create cgroups under $CG/*/$ROOT: $(head -1 "$T/mkjob.err")"
done
CPUS=$(cat "$CG/cpuset/$ROOT/uid_0/job_$JA/cpuset.cpus")
NCPUS=$(awk -v l="$CPUS" 'BEGIN { n = split(l, r, ","); for (i = 1; i <= n; i++) { if (split(r[i], ab, "-") == 2) c += ab[2] - ab[1] + 1; else c++ } print c }')
echo "# root $ROOT, jobs A=$JA B=$JB C=$JC (empty) D=$JD, cpuset $CPUS, temp $T"

# A collector that sees every writer alive: 0.5 s passes into a textfile.
DAEMON_OUT=$T/daemon.prom
"$petricore" collect --cgroup-root "$CG" --textfile "$DAEMON_OUT" --interval 0.5 --instance kt --scratch-prefix "$SCR" \
  >"$T/daemon.log" 2>&1 &
DAEMON=$!

launch "$JA" busy "$W" busy "$READY/busy"
launch "$JA" threads "$W" threads "$READY/threads" 6
launch "$JA" files "$W" files "$READY/files" "$T/files" 15 "$SCR" 5
launch "$JA" mem "$W" mem "$READY/mem" 200
# The batch shell: the writer is its child (reaped inside the job), then it
# becomes an idle process.
launch "$JA" batch sh -c '"$1" write "$2" "$3" 32 && exec "$1" idle "$4"' sh \
  "$W" "$READY/write_a" "$T/work/written_a" "$READY/batch"
launch "$JB" idle_b "$W" idle "$READY/idle_b"
launch "$JB" write_b "$W" write "$READY/write_b" "$T/work/written_b" 32
WRITER_B=$!
launch "$JD" dirfd "$W" dirfd "$READY/dirfd" "$T/work" "$T/files/d00"
DPID=$!
wait_ready busy threads files mem idle_b dirfd write_a write_b batch  # batch: writer A has exited

# Writer B exits after its 1.5 s linger; the test (outside the job) reaps it.
for _ in $(seq 50); do kill -0 "$WRITER_B" 2>/dev/null || break; sleep 0.1; done
wait "$WRITER_B" 2>/dev/null
sleep 1.6  # three daemon passes after both writers exited
cp "$DAEMON_OUT" "$T/after_writers.prom" 2>/dev/null || : >"$T/after_writers.prom"

echo "# I/O: 32 MiB written with fsync by a process that then exited"
check_range "job B (writer's parent outside the job) jobs_write_mb after the writer exited, daemon" \
  "$(metric "$T/after_writers.prom" jobs_write_mb "$JB")" 32 34
check_range "job A (writer reaped by the job's batch shell) jobs_write_mb after the writer exited, daemon" \
  "$(metric "$T/after_writers.prom" jobs_write_mb "$JA")" 32 34

# A fresh collector over a 2 s window.
ONCE=$T/once.prom
if ! "$petricore" collect --cgroup-root "$CG" --once --once-window 2 --instance kt --scratch-prefix "$SCR" >"$ONCE" 2>"$T/once.err"; then
  not_ok "collect --once exits 0 ($(head -3 "$T/once.err"))"
fi
check_range "job A jobs_write_mb from a fresh collect --once (the kernel folds a reaped child's I/O into its parent)" \
  "$(metric "$ONCE" jobs_write_mb "$JA")" 32 34
echo "# note: job B jobs_write_mb from a fresh collect --once = $(metric "$ONCE" jobs_write_mb "$JB") (its writer exited, unseen, with its parent outside the job: no collector can know)"

echo "# job A"
cpu=$(metric "$ONCE" jobs_cpu_percent "$JA")
check_range "jobs_cpu_percent with one busy loop" "$cpu" 85 115
check_range "jobs_cpu_percent_per_core" "$(metric "$ONCE" jobs_cpu_percent_per_core "$JA")" \
  "$(awk -v c="${cpu:-0}" -v n="$NCPUS" 'BEGIN { print c / n - 0.01 }')" "$(awk -v c="${cpu:-0}" -v n="$NCPUS" 'BEGIN { print c / n + 0.01 }')"
check_eq "jobs_spawned_processes" "$(metric "$ONCE" jobs_spawned_processes "$JA")" 5
check_eq "jobs_thread_count{proc_name=\"kt_threads\"} (main thread included)" "$(metric "$ONCE" jobs_thread_count "$JA" 'proc_name="kt_threads"')" 6
for n in kt_busy kt_files kt_mem kt_idle; do
  check_eq "jobs_thread_count{proc_name=\"$n\"}" "$(metric "$ONCE" jobs_thread_count "$JA" "proc_name=\"$n\"")" 1
done
check_eq "jobs_thread_count series" "$(series_count "$ONCE" jobs_thread_count "$JA")" 5
check_eq "jobs_opened_files (20 distinct regular files; a reopen, dup, pipe, socket, device and memfd do not count)" \
  "$(metric "$ONCE" jobs_opened_files "$JA")" 20
check_eq "jobs_uses_scratch (5 files under --scratch-prefix)" "$(metric "$ONCE" jobs_uses_scratch "$JA")" 1
rss=$(metric "$ONCE" jobs_rss "$JA")
check_range "jobs_rss with 200 MiB touched" "$rss" 200 230
peak=$(metric "$ONCE" jobs_memory_peak_mb "$JA")
check_range "jobs_memory_peak_mb >= jobs_rss" "$peak" "${rss:-0}" 1024
check_eq "jobs_memory_limit_mb" "$(metric "$ONCE" jobs_memory_limit_mb "$JA")" 1024
check_eq "jobs_cpus_allocated (cpuset $CPUS)" "$(metric "$ONCE" jobs_cpus_allocated "$JA")" "$NCPUS"
total=$(metric "$ONCE" jobs_cpu_time_total "$JA")
core_sum=0 cores_seen=0
for c in $(awk -v l="$CPUS" 'BEGIN { n = split(l, r, ","); for (i = 1; i <= n; i++) { if (split(r[i], ab, "-") == 2) { for (k = ab[1]; k <= ab[2]; k++) print k } else print r[i] } }'); do
  v=$(metric "$ONCE" jobs_cpu_time_core "$JA" "core=\"$c\"")
  [ -n "$v" ] && cores_seen=$((cores_seen + 1)) && core_sum=$(awk -v a="$core_sum" -v b="$v" 'BEGIN { print a + b }')
done
check_eq "jobs_cpu_time_core series, one per allocated core" "$(series_count "$ONCE" jobs_cpu_time_core "$JA")" "$NCPUS"
check_eq "jobs_cpu_time_core series for the allocated cores" "$cores_seen" "$NCPUS"
check_range "sum of jobs_cpu_time_core vs jobs_cpu_time_total=$total (5 %)" "$core_sum" \
  "$(awk -v t="${total:-0}" 'BEGIN { print t * 0.95 }')" "$(awk -v t="${total:-0}" 'BEGIN { print t * 1.05 }')"
check_range "jobs_cpu_time_total with a busy loop for several seconds" "$total" 2 60
ut=$(metric "$ONCE" jobs_user_time "$JA")
st=$(metric "$ONCE" jobs_system_time "$JA")
check_range "jobs_user_time + jobs_system_time ($ut + $st) vs jobs_cpu_time_total (10 %)" \
  "$(awk -v a="${ut:-0}" -v b="${st:-0}" 'BEGIN { print a + b }')" \
  "$(awk -v t="${total:-0}" 'BEGIN { print t * 0.9 }')" "$(awk -v t="${total:-0}" 'BEGIN { print t * 1.1 }')"
check_eq "jobs_gpus_used{gpuid=\"0\"}" "$(metric "$ONCE" jobs_gpus_used "$JA" 'gpuid="0"')" 1
check_eq "jobs_gpus_used{gpuid=\"10\"}" "$(metric "$ONCE" jobs_gpus_used "$JA" 'gpuid="10"')" 1
check_eq "jobs_gpus_used series (SLURM_JOB_GPUS=0,10)" "$(series_count "$ONCE" jobs_gpus_used "$JA")" 2
check_eq "jobs_info{user=\"root\",uid=\"0\",account=\"physics\"}" \
  "$(metric "$ONCE" jobs_info "$JA" 'user="root",uid="0",account="physics"')" 1

echo "# jobs B, C, D"
check_eq "job B jobs_spawned_processes after its writer exited" "$(metric "$ONCE" jobs_spawned_processes "$JB")" 1
check_eq "job B jobs_uses_scratch (nothing under the scratch dir)" "$(metric "$ONCE" jobs_uses_scratch "$JB")" 0
check_absent "job C, a leftover empty job cgroup, is not exported" "$ONCE" "$JC"
check_absent "job C is not exported by the daemon either" "$T/after_writers.prom" "$JC"
# Open files are told apart by their fd link text alone: a stat() to exclude
# directories could hang on a dead NFS server, so a directory fd counts.
check_eq "job D jobs_opened_files (one regular file and one directory fd, both paths)" \
  "$(metric "$ONCE" jobs_opened_files "$JD")" 2

# Job D's only process exits: its series disappear at the next pass.
if [ -n "$(metric "$DAEMON_OUT" jobs_spawned_processes "$JD")" ]; then
  kill -KILL "$DPID"
  wait "$DPID" 2>/dev/null
  gone_at=$SECONDS gone=0
  for _ in $(seq 30); do
    if ! grep -qF "slurm_job=\"$JD\"" "$DAEMON_OUT"; then gone=1; break; fi
    sleep 0.1
  done
  if [ $gone -eq 1 ] && [ -n "$(metric "$DAEMON_OUT" jobs_spawned_processes "$JA")" ]; then
    ok "job D's series disappear within 3 s (daemon at 0.5 s) once its processes exited; job A's stay"
  else
    not_ok "job D's series disappear once its processes exited (expected none after 3 s, got $(grep -cF "slurm_job=\"$JD\"" "$DAEMON_OUT"))"
  fi
else
  not_ok "job D is exported by the daemon before its process is killed (expected a series, got none)"
fi
kill -0 "$DAEMON" 2>/dev/null && ok "the daemon ran throughout" || not_ok "the daemon ran throughout ($(tail -3 "$T/daemon.log"))"

if [ $fail -gt 0 ]; then
  echo "# collect --once output for the test's jobs:"
  grep -E "slurm_job=\"($JA|$JB|$JC|$JD)\"" "$ONCE" | sed 's/^/#   /'
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
