#!/usr/bin/env bash
# A collector that a hung file system cannot stall (ARCHITECTURE.md §4b,
# issue 15): a FUSE file system that hangs on demand (hang_fs.c, built by
# meson with libfuse3) stands in for a dead NFS or Lustre server. Three
# Slurm-layout v1 job cgroups (scripts/lib/slurm-cgroup.sh):
#
#   jobs G1, G2  an idle process each: must be exported every interval
#   job H        "reader": its cwd and an open file on the file system, reading
#                new offsets of it every 0.1 s, so it blocks once it hangs (a
#                signal then puts it in state D, as a dead NFS server does);
#                "execer": holds a file there open with O_CLOEXEC and, once the
#                file system hangs, calls execve, which then hangs closing
#                that file while holding its exec lock: any read of its
#                /proc/<pid>/stat or io waits with it.
#
# With the file system hung for 6 s, a daemon at --interval 1 --pass-timeout
# 0.8 must: keep writing the textfile every interval with G1 and G2, keep
# job H's cgroup numbers, count the skipped processes, keep its pass time
# under the pass timeout, and exit promptly on SIGTERM.
#
# Usage: hang_test.sh PATH-TO-PETRICORE (HANG_FS names the FUSE server).
# Exit 77 (skipped) with the reason when FUSE or writable cgroups are missing.
set -uo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/slurm-cgroup.sh
source "$(dirname "$0")/../../scripts/lib/slurm-cgroup.sh"

petricore=${1:?usage: hang_test.sh PATH-TO-PETRICORE}
petricore=$(realpath "$petricore")
CG=$SLURM_CGROUP_BASE

skip() { echo "SKIPPED: $1"; exit 77; }
why=$(slurm_cgroup_unavailable)
[ -z "$why" ] || skip "$why"
[ -n "${HANG_FS:-}" ] && [ -x "$HANG_FS" ] || skip "the FUSE server was not built (meson found no fuse3: install libfuse3-dev)"
[ -c /dev/fuse ] || skip "no /dev/fuse on this host"
command -v cc >/dev/null || skip "no C compiler (cc) to build the test processes"

ROOT=slurm_hang$$
BASE=$(($$ * 100))
JG1=$((BASE + 1)) JG2=$((BASE + 2)) JH=$((BASE + 3))
T=$(mktemp -d /tmp/petricore-hang.XXXXXX) || skip "cannot create a temp dir"
MNT=$T/mnt
READY=$T/ready
mkdir -p "$MNT" "$READY" "$T/work"
PIDS=()
DAEMON='' SERVER=''

unhang() { [ -n "$SERVER" ] && kill -USR2 "$SERVER" 2>/dev/null; }
cleanup() {
  local p conn
  exec 2>/dev/null  # no "Killed" job notices
  # Answer the file system again first: the execer and any reader stuck on
  # it go on, so every process can be killed and every cgroup removed.
  unhang
  if mountpoint -q "$MNT"; then
    conn=$(stat -c %d "$MNT")
    [ -w "/sys/fs/fuse/connections/$conn/abort" ] && sleep 0.2 && echo 1 >"/sys/fs/fuse/connections/$conn/abort"
  fi
  if [ -n "$DAEMON" ]; then
    kill -KILL "$DAEMON" 2>/dev/null
  fi
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  slurm_remove_root "$ROOT"
  fusermount3 -u "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
  if [ -n "$SERVER" ]; then
    kill -TERM "$SERVER" 2>/dev/null
    for _ in $(seq 20); do kill -0 "$SERVER" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER" 2>/dev/null
  fi
  wait 2>/dev/null
  for c in "${SLURM_CGROUP_CONTROLLERS[@]}"; do
    [ -d "$CG/$c/$ROOT" ] && echo "# warning: could not remove $CG/$c/$ROOT"
  done
  mountpoint -q "$MNT" && echo "# warning: $MNT is still mounted"
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the processes ---------------------------------------------------------
cat >"$T/hang_worker.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what) { perror(what); exit(2); }

static void ready(const char *path) {
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) die(tmp);
  fprintf(f, "%d\n", (int)getpid());
  if (fclose(f) != 0 || rename(tmp, path) != 0) die("ready");
}

static volatile sig_atomic_t go;
static void on_usr1(int sig) { (void)sig; go = 1; }

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: hang_worker idle|reader|execer READY-FILE DIR\n"); return 2; }
  const char *mode = argv[1], *ready_file = argv[2], *dir = argv[3];
  if (!strcmp(mode, "idle")) {
    ready(ready_file);
  } else if (!strcmp(mode, "reader")) {  /* cwd and an open file in DIR; reads new offsets of it */
    /* A signal caught while a request waits turns FUSE's wait for the answer
       from interruptible (state S) to killable (state D), as NFS waits are. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    if (chdir(dir) != 0) die(dir);
    int fd = open("data", O_RDONLY);
    static char buf[4096];
    if (fd < 0 || pread(fd, buf, sizeof buf, 0) < 0) die("data");
    ready(ready_file);
    for (off_t off = 1 << 20;; off += 1 << 20) {
      (void)!pread(fd, buf, sizeof buf, off);
      usleep(100 * 1000);
    }
  } else if (!strcmp(mode, "execer")) {  /* a file of DIR open, close-on-exec; SIGUSR1: exec */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s/data", dir);
    if (open(path, O_RDONLY | O_CLOEXEC) < 0) die(path);
    ready(ready_file);
    while (!go) pause();
    execl("/bin/sleep", "sleep", "1000", (char *)NULL);
    die("execl");
  }
  for (;;) pause();
}
EOF
if ! cc -O1 -Wall -Wextra -o "$T/hang_worker" "$T/hang_worker.c" 2>"$T/cc.log"; then
  echo "Bail out! cannot build the test processes: $(cat "$T/cc.log")"
  exit 1
fi
W=$T/hang_worker

# --- the file system ----------------------------------------------------------
"$HANG_FS" "$MNT" >"$T/hang_fs.log" 2>&1 &
SERVER=$!
for _ in $(seq 50); do
  mountpoint -q "$MNT" && break
  kill -0 "$SERVER" 2>/dev/null || break
  sleep 0.1
done
mountpoint -q "$MNT" || skip "cannot mount a FUSE file system here: $(grep -v 'max threads' "$T/hang_fs.log" | head -2)"
[ -f "$MNT/data" ] || { echo "Bail out! the FUSE server answers nothing"; exit 1; }

# --- the jobs -----------------------------------------------------------------
for j in $JG1 $JG2 $JH; do
  JOB_CPUS='' JOB_MEMORY_LIMIT=256M slurm_make_job "$ROOT" 0 "$j" batch 2>"$T/mkjob.err" ||
    skip "cannot create cgroups under $CG/*/$ROOT: $(head -1 "$T/mkjob.err")"
done
launch() {  # JOB NAME MODE
  (
    slurm_add_pid "$ROOT" 0 "$1" batch "$BASHPID" || exit 97
    cd "$T/work" || exit 97
    export SLURM_JOB_ID=$1 SLURM_JOB_ACCOUNT=physics
    exec "$W" "$3" "$READY/$2" "$MNT"
  ) </dev/null >/dev/null 2>"$T/launch-$2.err" &
  PIDS+=($!)
}
launch "$JG1" g1 idle
launch "$JG2" g2 idle
launch "$JH" reader reader
READER=$!
launch "$JH" execer execer
EXECER=$!
deadline=$((SECONDS + 15))
for name in g1 g2 reader execer; do
  while [ ! -s "$READY/$name" ]; do
    if [ $SECONDS -ge $deadline ]; then
      echo "Bail out! worker '$name' not ready after 15 s: $(cat "$T"/launch-*.err | head -3)"
      exit 1
    fi
    sleep 0.05
  done
done
echo "# root $ROOT, jobs G1=$JG1 G2=$JG2 H=$JH (reader $READER, execer $EXECER), file system $MNT, temp $T"

pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }
# metric FILE NAME [LABEL-SUBSTRING]: the value of the first matching series.
metric() {
  awk -v n="$2{" -v l="${3:-}" 'index($0, n) == 1 && (l == "" || index($0, l)) { print $NF; exit }' "$1"
}

OUT=$T/jobs.prom
"$petricore" collect --cgroup-root "$CG" --textfile "$OUT" --interval 1 --pass-timeout 0.8 --instance hang \
  >"$T/daemon.log" 2>&1 &
DAEMON=$!
for _ in $(seq 100); do
  [ -f "$OUT" ] && grep -qF "slurm_job=\"$JH\"" "$OUT" && grep -qF "slurm_job=\"$JG2\"" "$OUT" && break
  sleep 0.1
done
grep -qF "jobs_cpu_time_total{instance=\"hang\",slurm_job=\"$JH\"}" "$OUT" 2>/dev/null ||
  { echo "Bail out! the daemon did not export the jobs within 10 s: $(tail -3 "$T/daemon.log")"; exit 1; }
cp "$OUT" "$T/before.prom"
check_eq_before() { [ "$(metric "$T/before.prom" "$1" "$2")" = "$3" ]; }
check_eq_before petricore_collect_skipped_total 'reason="timeout"' 0 &&
  check_eq_before petricore_collect_skipped_total 'reason="d_state"' 0 &&
  ok "nothing skipped while the file system answers" ||
  not_ok "nothing skipped while the file system answers (got $(grep skipped_total "$T/before.prom" | tr '\n' ' '))"

# --- the file system hangs ------------------------------------------------------
kill -USR1 "$SERVER"
sleep 0.3
hang_start=$(date +%s.%N)
kill -USR1 "$EXECER" "$READER"  # the execer's execve now hangs closing its file; the reader waits in D
while awk -v s="$hang_start" -v n="$(date +%s.%N)" 'BEGIN { exit !(n - s < 6) }'; do
  s=$T/during.$(date +%s%N).prom
  cp "$OUT" "$s"
  date +%s.%N -r "$OUT" >>"$T/mtimes"
  sleep 0.2
done
reader_state=$(awk '$1 == "State:" { print $2 }' /proc/"$READER"/status)
echo "# reader in state $reader_state, execer in state $(awk '$1 == "State:" { print $2 }' /proc/"$EXECER"/status)"
if timeout 1 cat /proc/"$EXECER"/stat >/dev/null; then
  echo "# note: /proc/$EXECER/stat still answers during its hung execve on this kernel"
else
  echo "# /proc/$EXECER/stat hangs during its hung execve (1 s timeout), as the collector's reader found"
fi
snapshots=("$T"/during.*.prom)
last=${snapshots[-1]}
first=${snapshots[0]}
written=$(sort -u "$T/mtimes" | awk -v s="$hang_start" '$1 > s' | wc -l)
if [ "$written" -ge 4 ]; then ok "the textfile was written $written times in the 6 s of the hang (interval 1 s)"
else not_ok "the textfile is written every interval during the hang (expected >= 4 writes in 6 s, got $written)"; fi
missing=0
for s in "${snapshots[@]}"; do
  for j in $JG1 $JG2; do
    grep -qF "jobs_spawned_processes{instance=\"hang\",slurm_job=\"$j\"} 1" "$s" || missing=$((missing + 1))
  done
done
[ $missing -eq 0 ] && ok "jobs G1 and G2 are exported in all ${#snapshots[@]} snapshots of the hang" ||
  not_ok "jobs G1 and G2 are exported throughout the hang ($missing snapshot-jobs missing)"
for m in jobs_cpu_time_total jobs_memory_usage_mb jobs_memory_limit_mb; do
  v=$(metric "$last" "$m" "slurm_job=\"$JH\"")
  [ -n "$v" ] && ok "the hung job H keeps its cgroup number $m = $v" ||
    not_ok "the hung job H keeps its cgroup number $m (no series at the end of the hang)"
done
t0=$(metric "$first" petricore_collect_skipped_total 'reason="timeout"')
t1=$(metric "$last" petricore_collect_skipped_total 'reason="timeout"')
d1=$(metric "$last" petricore_collect_skipped_total 'reason="d_state"')
p1=$(metric "$last" petricore_collect_skipped_total 'reason="pass_timeout"')
echo "# petricore_collect_skipped_total at the end of the hang: timeout=$t1 d_state=$d1 pass_timeout=$p1"
if [ "$reader_state" = D ]; then
  awk -v d="${d1:-0}" 'BEGIN { exit !(d >= 3) }' &&
    ok "petricore_collect_skipped_total{reason=\"d_state\"} counts the reader in state D at every pass ($d1)" ||
    not_ok "petricore_collect_skipped_total{reason=\"d_state\"} counts the reader in state D (got ${d1:-nothing})"
else
  echo "# note: the reader is in state $reader_state, not D, on this kernel: the d_state count is not checked"
fi
awk -v a="${t0:-0}" -v b="${t1:-0}" 'BEGIN { exit !(b > a && b >= 3) }' &&
  ok "petricore_collect_skipped_total{reason=\"timeout\"} rises during the hang ($t0 -> $t1)" ||
  not_ok "petricore_collect_skipped_total{reason=\"timeout\"} rises during the hang (got $t0 -> $t1)"
max_pass=$(for s in "${snapshots[@]}"; do metric "$s" petricore_collect_duration_seconds; done | sort -g | tail -1)
echo "# pass time during the hang: max $max_pass s over ${#snapshots[@]} snapshots (--pass-timeout 0.8)"
awk -v m="${max_pass:-9}" 'BEGIN { exit !(m < 0.8) }' && ok "every pass took under --pass-timeout 0.8 s (max $max_pass s)" ||
  not_ok "every pass takes under --pass-timeout 0.8 s (max ${max_pass:-none} s)"
kill -0 "$DAEMON" 2>/dev/null && ok "the daemon ran throughout" || not_ok "the daemon ran throughout ($(tail -3 "$T/daemon.log"))"

# --- SIGTERM while a reader thread is stuck --------------------------------------------
term_start=$(date +%s.%N)
kill -TERM "$DAEMON"
for _ in $(seq 50); do kill -0 "$DAEMON" 2>/dev/null || break; sleep 0.05; done
took=$(awk -v s="$term_start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.2f", n - s }')
if kill -0 "$DAEMON" 2>/dev/null; then
  not_ok "the daemon exits promptly on SIGTERM with the file system hung (still running after $took s)"
else
  wait "$DAEMON"
  rc=$?
  DAEMON=''
  [ $rc -eq 0 ] && ok "the daemon exits on SIGTERM in $took s with the file system still hung, status 0" ||
    not_ok "the daemon exits 0 on SIGTERM (status $rc after $took s)"
fi

if [ $fail -gt 0 ]; then
  echo "# daemon log:"
  sed 's/^/#   /' "$T/daemon.log" | tail -20
  echo "# last snapshot, petricore_ series:"
  grep '^petricore_' "$last" | sed 's/^/#   /'
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
