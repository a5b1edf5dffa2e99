#!/bin/bash
# The fleet view as its users meet it, over the efficiency benchmark's
# archive of 1,000,000 jobs (efficiency_bench --keep): the first and the
# cached /api/v1/efficiency?by=account over 90 days from a real `petricore
# serve` (targets: <= 1 s, <= 20 ms cached), the /efficiency page, and the
# heavy user's 30-day digest as `report --user heavy` prints it in text and
# in PDF (target: <= 1 s for 10,000 jobs). Prints figures; asserts nothing.
#
# Usage: test/bench/fleet_answers.sh BUILD-DIR   (JOBS=1000000, KEEP=1)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/process.sh
source "$HERE/../../scripts/lib/process.sh"
BUILD=${1:?usage: $0 BUILD-DIR}
PETRICORE=$BUILD/src/petricore
JOBS=${JOBS:-1000000}
T=$(mktemp -d /tmp/petricore-fleetbench.XXXXXX) || exit 1
SERVE_PID=
cleanup() { stop_pid "$SERVE_PID"; [ -n "${KEEP:-}" ] || rm -rf "$T"; }
trap cleanup EXIT

"$BUILD/test/bench/efficiency_bench" --jobs "$JOBS" --dir "$T" --keep >"$T/fill.txt" || exit 1
# The benchmark's clock: its jobs end before 2027-01-15T08:00:00Z (1.8e9).
UNTIL=2027-01-15T08:00:00
SINCE90=2026-10-17T08:00:00
SINCE30=2026-12-16T08:00:00
printf '[archive]\npath = "%s"\ncluster = "bench"\ninterval = 0\n' "$T/efficiency.db" >"$T/petricore.toml"

port=$(free_ports 1)
"$PETRICORE" --config "$T/petricore.toml" --log-level warning serve --listen "127.0.0.1:$port" \
  --prometheus http://127.0.0.1:9 --accounting prometheus </dev/null >"$T/serve.log" 2>&1 &
SERVE_PID=$!
wait_ready serve "$SERVE_PID" "http://127.0.0.1:$port/healthz" "$T/serve.log" 10 || exit 1
url="http://127.0.0.1:$port/api/v1/efficiency?by=account&since=$SINCE90&until=$UNTIL"
ms() { curl -s -o "$T/body" -w '%{time_total}' "$1" | awk '{ printf "%.1f", $1 * 1000 }'; }
echo "archive: $JOBS jobs, $(du -m "$T/efficiency.db" | cut -f1) MiB"
echo "/api/v1/efficiency by account, 90 days: first $(ms "$url") ms ($(jq .total.jobs "$T/body") jobs)"
cached=$(for _ in $(seq 1 20); do ms "$url"; echo; done | sort -n | awk '{ v[NR] = $1 } END { printf "median %s, max %s", v[int((NR + 1) / 2)], v[NR] }')
echo "  cached (20 requests): $cached ms"
page="http://127.0.0.1:$port/efficiency?by=account&since=$SINCE90&until=$UNTIL"
echo "/efficiency page (the same query, cached sums): $(ms "$page") ms, $(wc -c <"$T/body") bytes"

t0=$(date +%s%N)
"$PETRICORE" --config "$T/petricore.toml" report --user heavy --since "$SINCE30" --until "$UNTIL" >"$T/digest.txt"
t1=$(date +%s%N)
"$PETRICORE" --config "$T/petricore.toml" report --user heavy --since "$SINCE30" --until "$UNTIL" --pdf "$T/digest.pdf"
t2=$(date +%s%N)
jobs=$("$PETRICORE" --config "$T/petricore.toml" report --user heavy --since "$SINCE30" --until "$UNTIL" --json | jq .total.jobs)
echo "report --user heavy, 30 days ($jobs jobs): text $(((t1 - t0) / 1000000)) ms, PDF $(((t2 - t1) / 1000000)) ms ($(wc -c <"$T/digest.pdf") bytes)"
