#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# `petricore serve` under abuse (issue 15), loopback only, every loop
# bounded. A REAL serve over a REAL Prometheus (Debian's) holding two
# finished jobs (lib/synthetic_jobs.py: A of alice, B of bob), --auth header
# from 127.0.0.1, admin carol; the clients are abuse_client.py's.
#
#   * Floods: 500 slow-loris connections (a header line a second, never
#     done) and 20 clients sending 20 kB headers and 200 header fields over
#     and over, for 10 s, while a client GETs /healthz and alice's cached
#     job A in turn: every probe is answered 200 (the p50, p99 and max are
#     printed: figures, not assertions); the header floods get 431.
#   * 5,000 connections at once against --max-connections 1000: the extra
#     ones get 503 at once (never a hang or a reset), /healthz answers during
#     and after, and serve's open descriptors are back where they were once
#     the clients close (none leaked).
#   * Pipelined requests, request smuggling (two Content-Lengths,
#     Transfer-Encoding on a GET, both at once), path traversal and
#     encoded-slash tricks, oversized, non-UTF-8 and CRLF-carrying ids, the
#     identity header from an untrusted address, twice, case-varied or as a
#     list: one answer each, 4xx, never a file, never bob's job.
#   * A Prometheus that answers in 30 s, never, or sends 100 MB, behind a
#     second serve (--prometheus-timeout 3): the job route answers 502/504
#     with a one-line JSON error within the timeout and a margin, /healthz
#     answers meanwhile, and serve's peak RSS (VmHWM) stays under the bounds
#     the README states (100 MB; 400 MB while a 100 MB answer is decoded).
#   Serve's peak RSS over the whole suite is printed too.
#
# Usage: abuse_test.sh PETRICORE_BINARY. Exit 77 with "SKIPPED: <why>"
# without prometheus, promtool, curl, jq or python3.
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$(dirname "$0")/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/serve.sh
source "$(dirname "$0")/../../scripts/lib/serve.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
why=$(prom_unavailable promtool jq python3)
[ -z "$why" ] || skip "$why"
CLIENT=$(cd "$(dirname "$0")" && pwd)/abuse_client.py
# The README's bounds on serve's peak resident memory ("serve under abuse"):
# under floods and connection storms; and while it decodes a 100 MB
# Prometheus answer (its samples take about as much as its text, up to
# twice that while an array grows).
RSS_BOUND_MB=100
RSS_BOUND_HUGE_MB=400
# AddressSanitizer's shadow memory and quarantine inflate RSS several fold:
# an ASan build prints the figures without holding them to the bounds.
sanitized=0
ldd "$PETRICORE" 2>/dev/null | grep -q libasan && sanitized=1
# check_rss WHAT PEAK_MB BOUND_MB
check_rss() {
  if [ "$sanitized" = 1 ]; then
    echo "# $1: $2 MB (ASan build: the $3 MB bound is for the normal build)"
  else
    check "$1: under $3 MB ($2 MB)" [ "${2:-99999}" -lt "$3" ]
  fi
}

loopback_without_proxy

T=$(mktemp -d /tmp/petricore-abusetest.XXXXXX) || bail "create a temp dir"
SERVE_PID='' UP_PID='' SERVE2_PID='' LOAD_PID=''
cleanup() {
  stop_pid "$LOAD_PID"
  stop_pid "$SERVE2_PID"
  stop_pid "$UP_PID"
  stop_pid "$SERVE_PID"
  prom_stop
  [ "$failed" -gt 0 ] && tail_logs 15 "$T"/serve*.log
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

verdict() { if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1"; fi; }
status() { curl -s -o "$T/body" -w '%{http_code}' --max-time 15 "$@"; }
peak_rss_mb() { awk '/^VmHWM:/ { printf "%d", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }
open_fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
json_of() { jq -r "$1" "$T/$2.json" 2>/dev/null; }

JOB_A=$(random_job_id)
JOB_B=$((JOB_A + 1))
END=$(prom_backfill_end)
prom_backfill_synthetic "$T/data.om" "$T/tsdb" "$JOB_A" "$JOB_B" $((END - 3600)) "$END" || bail "backfill with promtool"
prom_start "$T" "$T/tsdb" || bail "start prometheus"

serve_start "$T/serve.log" --prometheus "$PROM_URL" --accounting prometheus --auth header --admin carol \
  --max-connections 1000 --idle-timeout 30 || bail "start serve"
S=$SERVE_URL
port=${S##*:}
code=$(status -H "X-Remote-User: alice" "$S/api/v1/jobs/$JOB_A/usage")
[ "$code" = 200 ] || bail "alice's job A answers before the abuse: $code $(head -c 200 "$T/body")"
ok "serve up on $S, job A analysed and cached"

# --- floods while probing
python3 "$CLIENT" flood "$S" --user alice --probe /healthz "/api/v1/jobs/$JOB_A/usage" \
  --slowloris 500 --header-floods 20 --seconds 10 >"$T/flood.json" 2>"$T/flood.err" ||
  not_ok "the flood client ran ($(tail -n 2 "$T/flood.err"))"
echo "# floods: $(cat "$T/flood.json")"
probes=$(json_of .probes flood) failed_probes=$(json_of .failed flood)
check "every probe answered 200 under the floods ($probes probes, $failed_probes failed: $(json_of .probe_failures flood))" \
  [ "${probes:-0}" -gt 50 -a "${failed_probes:-1}" = 0 ]
check "the 500 slow-loris connections were all open at once ($(json_of .slowloris_open flood))" \
  [ "$(json_of .slowloris_open flood)" = 500 ]
check "the header floods got 431 ($(json_of .flood_431 flood) of them, $(json_of .flood_errors flood) errors)" \
  [ "$(json_of '.flood_431 // 0' flood)" -gt 0 ]
echo "# probe latency under the floods: p50 $(json_of .p50_ms flood) ms, p99 $(json_of .p99_ms flood) ms, max $(json_of .max_ms flood) ms"
code=$(status "$S/healthz")
check "healthz after the floods: 200" [ "$code" = 200 ]

# --- 5,000 connections at once
sleep 1
fds_before=$(open_fds "$SERVE_PID")
python3 "$CLIENT" connections 127.0.0.1 "$port" --count 5000 --hold 3 >"$T/conn.json" 2>"$T/conn.err" &
LOAD_PID=$!
for _ in $(seq 1 200); do [ -s "$T/conn.json" ] && break; sleep 0.1; done
code=$(status "$S/healthz")
echo "# 5000 connections: $(cat "$T/conn.json" 2>/dev/null)"
ok_200=$(json_of '."200"' conn) refused=$(json_of '."503"' conn) none=$(json_of .none conn)
check "5000 connections: each one answered, 200 or 503 ($ok_200 + $refused, $none without an answer)" \
  [ "$((${ok_200:-0} + ${refused:-0}))" = 5000 ]
check "at most 1000 were served at once, the rest refused with 503 ($refused)" [ "${refused:-0}" -ge 4000 ]
code_during=$code
wait "$LOAD_PID"
LOAD_PID=
# With 1000 held, healthz is one too many: refused at once, not left hanging.
check "healthz while 1000 connections were held: 503 at once ($code_during)" [ "$code_during" = 503 ]
fds_after=$fds_before
for _ in $(seq 1 50); do
  fds_after=$(open_fds "$SERVE_PID")
  [ "$fds_after" -le $((fds_before + 2)) ] && break
  sleep 0.2
done
check "no descriptor leaked: $fds_before open before, $fds_after after" [ "$fds_after" -le $((fds_before + 2)) ]
check "healthz after the 5000 connections: 200" [ "$(status "$S/healthz")" = 200 ]

# --- malformed, smuggled and tricked requests
python3 "$CLIENT" malformed 127.0.0.1 "$port" --user alice --job "$JOB_A" --other-job "$JOB_B" >"$T/malformed.txt" 2>"$T/malformed.err" ||
  not_ok "the malformed-request client ran ($(tail -n 2 "$T/malformed.err"))"
while IFS=$'\t' read -r verdict what; do
  if [ "$verdict" = ok ]; then ok "$what"; else not_ok "$what"; fi
done <"$T/malformed.txt"
check "healthz after the malformed requests: 200" [ "$(status "$S/healthz")" = 200 ]
peak1=$(peak_rss_mb "$SERVE_PID")
echo "# serve's peak RSS through floods, connections and malformed requests: $peak1 MB"
check_rss "serve's peak RSS through floods, connections and malformed requests" "$peak1" "$RSS_BOUND_MB"

# --- a Prometheus that is slow, silent or huge
for mode in slow never huge; do
  up_port=$(free_ports 1)
  python3 "$CLIENT" upstream "$up_port" "$mode" >"$T/up-$mode.log" 2>&1 &
  UP_PID=$!
  for _ in $(seq 1 50); do (exec 3<>"/dev/tcp/127.0.0.1/$up_port") 2>/dev/null && break; sleep 0.1; done
  first=$SERVE_PID
  serve_start "$T/serve-$mode.log" --prometheus "http://127.0.0.1:$up_port" --prometheus-timeout 3 \
    --accounting prometheus --auth header --admin carol || bail "start serve over the $mode Prometheus"
  SERVE2_PID=$SERVE_PID S2=$SERVE_URL
  SERVE_PID=$first
  started=$(date +%s%N)
  code=$(status -H "X-Remote-User: alice" --max-time 30 "$S2/api/v1/jobs/$JOB_A/usage")
  took_ms=$((($(date +%s%N) - started) / 1000000))
  took=$((took_ms / 1000)).$(printf '%03d' $((took_ms % 1000)))
  lines=$(wc -l <"$T/body")
  [[ "$code" =~ ^50[24]$ ]] && jq -e '.error | length > 0' "$T/body" >/dev/null 2>&1 && [ "$lines" -le 1 ]
  rc=$?
  verdict "Prometheus $mode: $code with a one-line JSON error in ${took}s ($(head -c 160 "$T/body"))" "$rc"
  check "Prometheus $mode: answered within the timeout and a margin (${took}s <= 10 s)" [ "$took_ms" -le 10000 ]
  check "Prometheus $mode: healthz still 200" [ "$(status "$S2/healthz")" = 200 ]
  peak=$(peak_rss_mb "$SERVE2_PID")
  bound=$RSS_BOUND_MB
  [ "$mode" = huge ] && bound=$RSS_BOUND_HUGE_MB
  echo "# serve's peak RSS over the $mode Prometheus: $peak MB"
  check_rss "Prometheus $mode: serve's peak RSS" "$peak" "$bound"
  stop_pid "$SERVE2_PID"
  SERVE2_PID=
  stop_pid "$UP_PID"
  UP_PID=
done

summary
[ "$failed" = 0 ]
