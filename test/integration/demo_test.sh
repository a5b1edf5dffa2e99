#!/bin/bash
# Functions are called through check and the EXIT trap:
# shellcheck disable=SC2317
# scripts/demo as a user runs it (quick start, command one), with the binary
# under test (PETRICORE=...: nothing installed or built) in a temp directory:
#   * it exits 0 and prints a table of its seven real Slurm jobs with the
#     states and findings they are built to show, the `report` text of the
#     serial job, a PDF, and where to look;
#   * every job page it names answers 200 with the job on it, the index too,
#     the PDF is a PDF of that job, the long job is still running;
#   * `scripts/demo stop` stops every process the demo recorded, removes its
#     job cgroups, its directory and the job user it created; a second stop
#     says there is nothing to stop; a wrong argument exits 2.
#
# Usage: demo_test.sh PETRICORE_BINARY   (root; KEEP=1 keeps the temp dir)
# Exit 0 all passed, 1 a check failed, 77 skipped (what the Slurm cluster
# needs is missing: lib/slurm_cluster.sh says what).
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
here=$(cd "$(dirname "$0")" && pwd)
demo=$here/../../scripts/demo
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$here/../../scripts/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/slurm_cluster.sh
source "$here/../../scripts/lib/slurm_cluster.sh"
why=$(slurm_cluster_unavailable)
[ -z "$why" ] || skip "$why"
command -v pdfinfo >/dev/null || skip "pdfinfo (poppler-utils) is not installed"

loopback_without_proxy

START=$SECONDS
T=$(mktemp -d /tmp/petricore-demotest.XXXXXX) || bail "create a temp dir"
chmod 755 "$T"  # munged wants every directory above its socket searchable by all
export DEMO_DIR=$T/demo DEMO_USER=petricore-demotest
user_existed=no
id "$DEMO_USER" >/dev/null 2>&1 && user_existed=yes
cleanup() {
  # Whatever a failed check left running goes the demo's own way.
  [ -f "$DEMO_DIR/state.sh" ] && "$demo" stop >/dev/null 2>&1
  echo "# run time $((SECONDS - START)) s"
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the demo
DEMO_PORT=$(free_ports 1) PETRICORE=$PETRICORE "$demo" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 0 ]; then
  ok "scripts/demo exits 0 after $((SECONDS - START)) s"
else
  sed 's/^/# /' "$T/out" "$T/err"
  bail "scripts/demo exits 0 (got $rc)"
fi
sed -n '/^job /,/^$/p' "$T/out" | sed 's/^/# /'
check "nothing on stderr" test ! -s "$T/err"

url=$(sed -nE 's|^  job pages +(http://127\.0\.0\.1:[0-9]+)/jobs/.*|\1|p' "$T/out")
check "the output names serve's URL ($url)" test -n "$url"

declare -A ID=() STATE=() FINDINGS=()
while read -r name id state rest; do
  ID[$name]=$id
  STATE[$name]=$state
  FINDINGS[$name]=$rest
done < <(grep -E '^(cpu2|serial|memover|smallio|oom|gpu|live) +[0-9]+ ' "$T/out")
check "the table lists the demo's 7 jobs (${!ID[*]})" test "${#ID[@]}" = 7

expect_state() {  # NAME STATE
  if [ "${STATE[$1]:-}" = "$2" ]; then ok "$1 (${ID[$1]:-?}): $2"; else not_ok "$1: state ${STATE[$1]:-none}, expected $2"; fi
}
for n in cpu2 serial memover smallio gpu; do expect_state "$n" COMPLETED; done
expect_state oom OUT_OF_MEMORY
expect_state live RUNNING

expect_finding() {  # NAME RULE: the rule the job was built to show
  case ${FINDINGS[$1]:-} in
    *"$2 ("*) ok "$1 shows $2" ;;
    *) not_ok "$1 shows $2: ${FINDINGS[$1]:-nothing}" ;;
  esac
}
expect_finding serial serial_on_many_cores
expect_finding serial cpu_efficiency
expect_finding memover memory_overallocated
expect_finding smallio small_io_many_files
expect_finding oom job_state
expect_finding live cpu_efficiency
# The GPU job's GPUs, read through the stand-in NVML: one busy in bursts, one idle.
expect_finding gpu gpu_unused
expect_finding gpu gpu_efficiency

# ---- where it says to look
page_has() {  # ID: the job page answers 200 and shows the job
  local body
  body=$(curl -sf --max-time 60 "$url/jobs/$1") && grep -q "Job $1" <<<"$body"
}
for n in "${!ID[@]}"; do
  check "$url/jobs/${ID[$n]} ($n) answers 200 with the job" page_has "${ID[$n]}"
done
check "$url/ answers 200" curl -sf --max-time 10 -o /dev/null "$url/"
# The GPU job's page shows its GPU charts, and they are PNG images.
gpu_chart() {  # METRIC
  curl -sf --max-time 60 "$url/jobs/${ID[gpu]}" | grep -q "/plot/${ID[gpu]}/$1\"" &&
    [ "$(curl -sf --max-time 60 "$url/plot/${ID[gpu]}/$1" | head -c 8 | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}
for metric in jobs_gpu_utilization_percent jobs_gpu_memory_used_mb; do
  check "the gpu job's page shows its $metric chart, a PNG" gpu_chart "$metric"
done

pdf=$(sed -nE 's|^  PDF report +([^ ]+\.pdf) .*|\1|p' "$T/out")
pdf_ok() { pdfinfo "$pdf" >/dev/null 2>&1; }
check "the PDF it names ($pdf) is a PDF" pdf_ok
pdf_has_job() { pdftotext "$pdf" - 2>/dev/null | grep -q "${ID[serial]}"; }
check "the PDF is the serial job's" pdf_has_job
check "the report text of the serial job is printed" grep -q "^Job ${ID[serial]} (serial): $DEMO_USER" "$T/out"
check "with its findings" grep -q "serial_on_many_cores: " "$T/out"

slurm_conf=$(sed -nE 's|^  export SLURM_CONF=(.*)|\1|p' "$T/out")
live_running() {
  local now
  now=$(SLURM_CONF=$slurm_conf timeout 10 squeue -h -j "${ID[live]}" -o %T)
  [ "$now" = RUNNING ]
}
check "the long job is still running" live_running

# ---- scripts/demo stop
state=$DEMO_DIR/state.sh
pids=$(grep -E '^declare -g[a-zA-Z]* (SC_PIDS|DEMO_PIDS)=' "$state" | grep -oE '"[0-9]+"' | tr -d '"')
node=$(sed -nE 's/^declare -g[a-zA-Z]* SC_NODE="(.*)"/\1/p' "$state")
check "the state file records the demo's processes ($(echo "$pids" | wc -w)) and node ($node)" \
  test "$(echo "$pids" | wc -w)" -ge 9 -a -n "$node"
"$demo" stop >"$T/stop.out" 2>&1
rc=$?
check "scripts/demo stop exits 0: $(tail -n 1 "$T/stop.out")" test $rc = 0
alive=''
for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive="$alive $pid($(cat "/proc/$pid/comm" 2>/dev/null))"; done
check "every recorded process is gone${alive:+ (left:$alive)}" test -z "$alive"
left=$(ls -d /sys/fs/cgroup/*/slurm_"$node" 2>/dev/null)
check "no job cgroup of the demo's node is left${left:+ ($left)}" test -z "$left"
check "its directory is gone" test ! -e "$DEMO_DIR"
if [ "$user_existed" = no ]; then
  check "the job user it created is gone" test -z "$(id -u "$DEMO_USER" 2>/dev/null)"
fi
"$demo" stop >"$T/stop2.out" 2>&1
rc=$?
check "a second stop exits 0 and says so: $(cat "$T/stop2.out")" test $rc = 0
"$demo" bogus >/dev/null 2>&1
rc=$?
check "a wrong argument exits 2" test $rc = 2

summary
[ "$failed" = 0 ]
