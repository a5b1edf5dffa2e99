#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# End-to-end test of a REAL `petricore serve` over a REAL Prometheus
# (Debian's prometheus 2.42) checked with curl:
#
#   * Prometheus holds two FINISHED jobs, backfilled with `promtool tsdb
#     create-blocks-from openmetrics` (lib/synthetic_jobs.py: job A of alice,
#     job B of bob, a 1-hour window ending 3 hours ago), and scrapes one
#     RUNNING job C of alice from a tiny file server every second.
#   * serve runs with --accounting prometheus --auth header --admin carol,
#     the header sent from 127.0.0.1 (a trusted proxy).
#
# Checks: the authorisation matrix (each user-facing route x anonymous,
# owner, another user, admin; the header from an untrusted address), the
# answers' contents, bad input (400/404/405/409/413/431 in the JSON error
# shape), the cache, keep-alive, HTTP/1.0 and HEAD, /metrics, start-up
# errors (auth none off loopback -> exit 2, port in use -> exit 1),
# Prometheus down (502 JSON, /healthz still 200), SIGTERM -> exit 0; then a
# second server with one worker over a Prometheus that never answers:
# saturation -> 503 at once while /healthz answers, and SIGTERM with requests
# in flight -> the running one gets its answer, the queued ones a prompt 503,
# and the server exits 0 well before the stop deadline.
#
# Usage: serve_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 with "SKIPPED: <why>" when
# prometheus, promtool, curl, jq or python3 are missing. KEEP=1 keeps the
# temp dir. Everything started is stopped by PID in the EXIT trap.
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$(dirname "$0")/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/serve.sh
source "$(dirname "$0")/../../scripts/lib/serve.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/slapd.sh
source "$(dirname "$0")/../../scripts/lib/slapd.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"

# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
why=$(prom_unavailable promtool jq python3)
[ -z "$why" ] || skip "$why"
"$PETRICORE" serve --help >/dev/null 2>&1 || skip "$PETRICORE has no serve subcommand yet"

loopback_without_proxy


T=$(mktemp -d /tmp/petricore-servetest.XXXXXX) || bail "create a temp dir"
SERVE_PID='' FILES_PID='' HOLE_PID='' SAT_PIDS=''

cleanup() {
  local pid
  for pid in $SAT_PIDS; do kill -KILL "$pid" 2>/dev/null; done
  stop_pid "$SERVE_PID"
  stop_pid "$HOLE_PID"
  stop_pid "$FILES_PID"
  prom_stop
  slapd_stop
  [ "$failed" -gt 0 ] && tail_logs 15 "$T"/serve*.log
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# serve_stop_term: SIGTERM, then the exit status (124 when still running after 30 s).
serve_stop_term() {
  local pid=$SERVE_PID _
  SERVE_PID=
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 124
  fi
  wait "$pid"
}

# status [CURL ARGS...] URL: the HTTP status; the body goes to $T/body.
status() { curl -s -o "$T/body" -w '%{http_code}' --max-time 15 "$@"; }
as() { local user=$1; shift; status -H "X-Remote-User: $user" "$@"; }
is_json_error() { jq -e 'keys == ["error"] and (.error | type == "string") and (.error | length > 0)' "$T/body" >/dev/null 2>&1; }
# expect_error WHAT STATUS [CURL ARGS...] URL: that status with a JSON error body.
expect_error() {
  local what=$1 want=$2 got
  shift 2
  got=$(status "$@")
  if [ "$got" = "$want" ] && is_json_error; then
    ok "$what: $want with a JSON error"
  else
    not_ok "$what: got $got ($(head -c 200 "$T/body")), expected $want with {\"error\": ...}"
  fi
}

# --- Prometheus: jobs A and B backfilled, job C scraped live
JOB_A=$(random_job_id)
JOB_B=$((JOB_A + 1))
JOB_C=$((JOB_A + 2))
# Running on two nodes whose collectors name two owners (a job exported under
# another's id from its environment): its owner is not known.
JOB_D=$((JOB_A + 3))
UNKNOWN=$((JOB_A + 7))
# Slurm 26.05 SLUIDs: job C's, exported with its number; one the collector
# has only under its SLUID (no readable SLURM_JOB_ID yet).
SLUID_C=s5K1KKYAYG5D0C
SLUID_U=s5K1KKYAYG5D0W
END=$(prom_backfill_end)
START=$((END - 3600))
prom_backfill_synthetic "$T/data.om" "$T/tsdb" "$JOB_A" "$JOB_B" "$START" "$END" || bail "backfill $T/data.om with promtool"

mkdir -p "$T/files"
cat >"$T/files/metrics" <<EOF
jobs_info{instance="node9",slurm_job="$JOB_C",user="alice",uid="1001",account="research",sluid="$SLUID_C"} 1
jobs_info{instance="node9",slurm_job="$SLUID_U",user="erin",uid="1005",account="research",sluid="$SLUID_U"} 1
jobs_info{instance="node9",slurm_job="$JOB_D",user="dan",uid="1006",account="research"} 1
jobs_info{instance="node8",slurm_job="$JOB_D",user="mallory",uid="1007",account="research"} 1
jobs_cpus_allocated{instance="node9",slurm_job="$JOB_C"} 2
jobs_cpu_percent{instance="node9",slurm_job="$JOB_C"} 150
jobs_rss{instance="node9",slurm_job="$JOB_C"} 100
EOF
FILES_PORT=$(free_ports 1)
python3 -m http.server --bind 127.0.0.1 --directory "$T/files" "$FILES_PORT" >"$T/files.log" 2>&1 &
FILES_PID=$!
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: running-job
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$FILES_PORT']
EOF
prom_start "$T" "$T/tsdb" "$T/prometheus.yml" || bail "start prometheus"
# Job C runs once Prometheus has a few scrapes of it (bounded: 10 s).
n=0
for _ in $(seq 1 100); do
  n=$(prom_get /api/v1/query --data-urlencode "query=count_over_time(jobs_info{slurm_job=\"$JOB_C\"}[1m])" |
    jq -r '.data.result[0].value[1] // 0')
  [ "${n:-0}" -ge 3 ] && break
  sleep 0.1
done
[ "${n:-0}" -ge 3 ] || bail "prometheus scraped running job $JOB_C ($n samples after 10 s)"
ok "prometheus on $PROM_URL holds finished jobs $JOB_A (alice) and $JOB_B (bob), scrapes running job $JOB_C (alice)"

# --- start-up errors
"$PETRICORE" serve --listen 0.0.0.0:"$(free_ports 1)" --prometheus "$PROM_URL" --accounting prometheus \
  >"$T/none.out" 2>"$T/none.err" </dev/null &
pid=$!
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
wait "$pid"
rc=$?
check "auth none off loopback: exit 2 with one line (exit $rc: $(head -n 1 "$T/none.err"))" \
  test "$rc" = 2 -a "$(wc -l <"$T/none.err")" = 1

serve_start "$T/serve1.log" --prometheus "$PROM_URL" --accounting prometheus --auth header --admin carol ||
  bail "start petricore serve"
ok "serve answers /healthz on $SERVE_URL (pid $SERVE_PID)"
B=$SERVE_URL
check "one start line: serving on $B" grep -q "serving on $B" "$T/serve1.log"

timeout 10 "$PETRICORE" serve --listen "${B#http://}" --prometheus "$PROM_URL" --accounting prometheus \
  >"$T/inuse.out" 2>"$T/inuse.err" </dev/null
rc=$?
check "port in use: exit 1 with one line (exit $rc: $(head -n 1 "$T/inuse.err"))" \
  test "$rc" = 1 -a "$(wc -l <"$T/inuse.err")" = 1

# --- the authorisation matrix: route x {anonymous, owner, another user, admin}
matrix() {
  local route=$1 anon=$2 owner=$3 other=$4 admin=$5 got_anon got_owner got_other got_admin
  got_anon=$(status "$B$route")
  got_owner=$(as alice "$B$route")
  got_other=$(as bob "$B$route")
  got_admin=$(as carol "$B$route")
  local got="$got_anon $got_owner $got_other $got_admin" want="$anon $owner $other $admin"
  if [ "$got" = "$want" ]; then
    ok "$route as anonymous/alice/bob/carol: $got"
  else
    not_ok "$route as anonymous/alice/bob/carol: got $got, expected $want"
  fi
}
matrix "/api/v1/jobs/$JOB_A/usage" 401 200 403 200
matrix "/api/v1/users/alice" 401 200 403 200
matrix "/mail/$JOB_A" 401 200 403 200
matrix "/" 200 200 200 200
matrix "/healthz" 200 200 200 200
matrix "/metrics" 200 200 200 200
expect_error "anonymous job usage" 401 "$B/api/v1/jobs/$JOB_A/usage"
expect_error "another user's job" 403 -H "X-Remote-User: bob" "$B/api/v1/jobs/$JOB_A/usage"
expect_error "the header from an untrusted address (127.0.0.2)" 401 --interface 127.0.0.2 \
  -H "X-Remote-User: alice" "$B/api/v1/jobs/$JOB_A/usage"
expect_error "the header twice" 401 -H "X-Remote-User: bob" -H "X-Remote-User: alice" "$B/api/v1/jobs/$JOB_A/usage"

# --- what the answers hold
code=$(as alice "$B/api/v1/jobs/$JOB_A/usage")
got=$(jq -r '"\(.jobid) \(.username) \(.state) \(.warning)"' "$T/body" 2>&1)
check "job JSON of $JOB_A: jobid, username, state, warning (got $code: $got)" \
  test "$code $got" = "200 $JOB_A alice COMPLETED true"
code=$(as alice "$B/api/v1/users/alice")
got=$(jq -r '"\(.user.username) \(.user.uid) \(.jobs | map(.jobid) | join(",")) \(.summary.jobs_analysed) \(.summary.jobs_with_warnings)"' "$T/body" 2>&1)
check "user JSON of alice: uid, jobs newest first, summary (got $code: $got)" \
  test "$code $got" = "200 alice 1001 $JOB_C,$JOB_A 1 1"
got=$(jq -r '.summary.cpu_efficiency.mean' "$T/body" 2>&1)
check "user summary: mean CPU efficiency of job A is 32.5 % (18720 s over 3600 s on 16 cores; got $got)" test "$got" = 32.5

# --- the user record with a real LDAP directory: mail and every group
# (a second server on the same Prometheus, with [ldap] set).
if [ -z "$(slapd_unavailable)" ]; then
  main_pid=$SERVE_PID main_url=$SERVE_URL
  if slapd_start "$T/slapd" "$(free_ports 1)" && slapd_load_base &&
    slapd_add_user alice 1001 alice@example.org && slapd_add_group physics 2001 alice bob &&
    slapd_add_group rrg-alice 2002 alice; then
    printf '%s\n' "$SLAPD_ADMIN_PASSWORD" >"$T/ldap.password"
    chmod 600 "$T/ldap.password"
    if serve_start "$T/serve-ldap.log" --prometheus "$PROM_URL" --accounting prometheus --auth header --admin carol \
      --ldap-uri "$SLAPD_URI" --ldap-base "$SLAPD_SUFFIX" --ldap-bind-dn "$SLAPD_ADMIN_DN" \
      --ldap-password-file "$T/ldap.password"; then
      code=$(as alice "$SERVE_URL/api/v1/users/alice")
      got=$(jq -r '"\(.user.email) \(.groups | join(","))"' "$T/body" 2>&1)
      check "user JSON of alice with LDAP: her mail and both groups (got $code: $got)" \
        test "$code $got" = "200 alice@example.org physics,rrg-alice"
      serve_stop_term >/dev/null
    else
      not_ok "serve with --ldap-uri starts"
    fi
  else
    not_ok "start slapd and load alice (see $T/slapd)"
  fi
  slapd_stop
  SERVE_PID=$main_pid SERVE_URL=$main_url
else
  echo "# skipped: the LDAP part of the user record: $(slapd_unavailable)"
fi

code=$(as alice -D "$T/headers" "$B/mail/$JOB_A")
check "mail of $JOB_A: text/plain ending WARNING=true (got $code, $(tail -n 1 "$T/body"))" \
  test "$code" = 200 -a "$(tail -n 1 "$T/body")" = "WARNING=true"
check "mail is text/plain" grep -qi '^content-type: text/plain' "$T/headers"
check "mail links the PDF on this server" grep -q "$B/pdf/$JOB_A" "$T/body"
code=$(status -H "Host: web.example.org" "$B/")
check "index links examples on the Host header (got $code)" grep -q 'href="http://web.example.org/api/v1/jobs/' "$T/body"
code=$(status -H 'Host: "><script>x</script>' "$B/")
check "index escapes a hostile Host header (got $code)" test "$code" = 200 -a -z "$(grep -F '<script>' "$T/body")"

# --- bad input
expect_error "non-numeric job id" 400 -H "X-Remote-User: carol" "$B/api/v1/jobs/abc/usage"
expect_error "huge job id" 400 -H "X-Remote-User: carol" "$B/api/v1/jobs/99999999999999999999/usage"
expect_error "job id over 32 bits" 400 -H "X-Remote-User: carol" "$B/api/v1/jobs/4294967296/usage"
expect_error "unknown job" 404 -H "X-Remote-User: carol" "$B/api/v1/jobs/$UNKNOWN/usage"
expect_error "mail of an unknown job" 404 -H "X-Remote-User: carol" "$B/mail/$UNKNOWN"
expect_error "unknown user" 404 -H "X-Remote-User: carol" "$B/api/v1/users/nosuchuser$RANDOM"
expect_error "invalid user name" 400 -H "X-Remote-User: carol" "$B/api/v1/users/-rf"
expect_error "../ in the path" 400 --path-as-is "$B/api/v1/../../etc/passwd"
expect_error "%2e%2e in the path" 400 --path-as-is "$B/api/v1/jobs/%2e%2e/usage"
expect_error "an encoded slash in the path" 400 --path-as-is "$B/mail/1%2f2"
expect_error "unknown route" 404 "$B/nope"
expect_error "POST" 405 -X POST "$B/api/v1/jobs/$JOB_A/usage"
expect_error "over-long header" 431 -H "X-Filler: $(head -c 20000 /dev/zero | tr '\0' a)" "$B/healthz"
many=()
for i in $(seq 1 80); do many+=(-H "X-Header-$i: $i"); done
expect_error "too many headers" 431 "${many[@]}" "$B/healthz"
head -c 100000 /dev/zero >"$T/bigbody"
expect_error "a body on GET" 413 -X GET --data-binary @"$T/bigbody" "$B/healthz"
code=$(status "$B/healthz")
check "still serving after the refusals (got $code)" test "$code" = 200

# --- the running job
expect_error "mail of running job $JOB_C" 409 -H "X-Remote-User: alice" "$B/mail/$JOB_C"
expect_error "mail of alice's running job for bob" 403 -H "X-Remote-User: bob" "$B/mail/$JOB_C"

expect_error "a job whose series name two owners, for one of them" 502 -H "X-Remote-User: mallory" "$B/api/v1/jobs/$JOB_D/usage"
check "the error says so ($(head -c 200 "$T/body"))" grep -Eq "name two owners \((dan and mallory|mallory and dan)\)" "$T/body"
expect_error "a job whose series name two owners, for an admin" 502 -H "X-Remote-User: carol" "$B/api/v1/jobs/$JOB_D/usage"

# --- a SLUID wherever a job id goes (resolved through jobs_info{sluid})
code=$(as alice "$B/api/v1/jobs/$(printf %s "$SLUID_C" | tr '[:upper:]' '[:lower:]')/usage")
got=$(jq -r '.jobid' "$T/body" 2>&1)
check "job JSON by SLUID $SLUID_C (lower case): job $JOB_C (got $code: $got)" test "$code $got" = "200 $JOB_C"
expect_error "alice's job by SLUID for bob" 403 -H "X-Remote-User: bob" "$B/api/v1/jobs/$SLUID_C/usage"
expect_error "unknown SLUID" 404 -H "X-Remote-User: carol" "$B/api/v1/jobs/s0000000000000/usage"
expect_error "SLUID known only by itself" 404 -H "X-Remote-User: carol" "$B/api/v1/jobs/$SLUID_U/usage"
check "its error says the number is not known yet ($(head -c 160 "$T/body"))" grep -q "only by its SLUID" "$T/body"
expect_error "malformed SLUID (O, I)" 400 -H "X-Remote-User: carol" "$B/api/v1/jobs/s5K1KKYAYG5DOI/usage"
code=$(status -D "$T/headers" "$B/jobs/?id=$SLUID_C")
check "job form: a SLUID goes on to its page (got $code)" grep -qi "^location: .*/jobs/$SLUID_C" "$T/headers"
got=$("$PETRICORE" report --prometheus "$PROM_URL" --accounting prometheus --json "$SLUID_C" 2>"$T/report.err" |
  jq -r '.jobid' 2>&1)
check "report --json $SLUID_C: job $JOB_C (got $got $(head -n 1 "$T/report.err"))" test "$got" = "$JOB_C"
"$PETRICORE" report --prometheus "$PROM_URL" --accounting prometheus s0000000000000 >/dev/null 2>"$T/report.err"
rc=$?
check "report of an unknown SLUID: exit 2 with one line (exit $rc: $(head -n 1 "$T/report.err"))" \
  test "$rc" = 2 -a "$(wc -l <"$T/report.err")" = 1
"$PETRICORE" report --prometheus "$PROM_URL" --accounting prometheus s5K1KKYAYG5D0 >/dev/null 2>"$T/report.err"
rc=$?
check "report of a malformed SLUID: exit 2, not a job id (exit $rc: $(head -n 1 "$T/report.err"))" \
  test "$rc" = 2 -a "$(grep -c "not a Slurm job id or SLUID" "$T/report.err")" = 1

# --- HTTP details
got=$(curl -s -o /dev/null -o /dev/null -w '%{num_connects} ' --max-time 10 "$B/healthz" "$B/healthz")
check "keep-alive: two requests over one connection (connects per request: $got)" test "$got" = "1 0 "
got=$(curl -s -0 -i --max-time 10 "$B/healthz" | head -n 1 | tr -d '\r')
check "HTTP/1.0 request answered in HTTP/1.0 ($got)" test "$got" = "HTTP/1.0 200 OK"
got=$(curl -s -I --max-time 10 "$B/healthz" | tr -d '\r' | grep -i '^content-length:')
check "HEAD: headers with the length, no body ($got)" test "$got" = "Content-Length: 3"
curl -s --max-time 10 "$B/metrics" >"$T/metrics"
check "/metrics counts requests by route and status" \
  grep -q "petricore_http_requests_total{route=\"/api/v1/jobs/{jobid}/usage\",status=\"403\"}" "$T/metrics"
check "/metrics has request durations" grep -q '^petricore_http_request_duration_seconds_bucket{route="/healthz"' "$T/metrics"
hits=$(sed -n 's/^petricore_cache_hits_total \([0-9.e+]*\)$/\1/p' "$T/metrics")
misses=$(sed -n 's/^petricore_cache_misses_total \([0-9.e+]*\)$/\1/p' "$T/metrics")
check "finished job A analysed once, then served from the cache (hits $hits, misses $misses)" \
  awk -v h="${hits:-0}" -v m="${misses:-0}" 'BEGIN { exit !(h >= 5 && m >= 1 && m <= 3) }'

# --- Prometheus down
prom_stop
expect_error "job $JOB_B with Prometheus down" 502 -H "X-Remote-User: bob" "$B/api/v1/jobs/$JOB_B/usage"
code=$(status "$B/healthz")
check "/healthz still 200 with Prometheus down (got $code)" test "$code" = 200
code=$(as alice "$B/api/v1/jobs/$JOB_A/usage")
check "cached finished job still served with Prometheus down (got $code)" test "$code" = 200

serve_stop_term
rc=$?
check "SIGTERM: exit 0 (got $rc)" test "$rc" = 0
check "the stop is logged" grep -q "stopped" "$T/serve1.log"

# --- a Prometheus that accepts and never answers; one worker
HOLE_PORT=$(free_ports 1)
python3 - "$HOLE_PORT" >"$T/hole.log" 2>&1 <<'EOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(256)
held = []
while True:
    held.append(s.accept()[0])
EOF
HOLE_PID=$!
serve_start "$T/serve2.log" --prometheus "http://127.0.0.1:$HOLE_PORT" --prometheus-timeout 4 \
  --accounting prometheus --workers 1 || bail "start the second serve"
B=$SERVE_URL
for i in $(seq 1 45); do
  curl -s -o /dev/null -w '%{http_code}\n' --max-time 40 "$B/api/v1/jobs/$((UNKNOWN + i))/usage" >"$T/sat.$i" 2>/dev/null &
  SAT_PIDS="$SAT_PIDS $!"
done
# Before the stop, every request must have reached the server: answered
# 503 at once, or holding a connection (queued or running). A curl that had
# not connected yet would see the closed listener, which is not what the
# checks below are about.
busy=0
sat_port=${B##*:}
for _ in $(seq 1 100); do
  busy=$(cat "$T"/sat.* 2>/dev/null | grep -c '^503$')
  open=$(ss -Htn state established "( sport = :$sat_port )" 2>/dev/null | wc -l)
  [ "$busy" -ge 1 ] && [ $((busy + open)) -ge 45 ] && break
  sleep 0.1
done
check "saturated workers: $busy request(s) refused at once with 503" test "$busy" -ge 1
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$B/healthz")
check "/healthz answers at once while the workers are busy (got $code)" test "$code" = 200

t0=$(date +%s)
serve_stop_term
rc=$?
took=$(($(date +%s) - t0))
check "SIGTERM with requests in flight: exit 0 (got $rc)" test "$rc" = 0
check "the stop took $took s: the running request's Prometheus timeout (4 s), not the 10-s deadline" \
  test "$took" -le 8
check "no connection was cut at the stop deadline" test -z "$(grep 'stop deadline' "$T/serve2.log")"
for pid in $SAT_PIDS; do wait "$pid" 2>/dev/null; done
SAT_PIDS=''
answered=$(cat "$T"/sat.* 2>/dev/null | grep -c '^502$')
check "the request in flight at SIGTERM got its answer (502 after the Prometheus timeout: $answered)" \
  test "$answered" -ge 1
lost=$(cat "$T"/sat.* 2>/dev/null | grep -vc '^50[23]$')
check "every request got an answer (502, or 503 when queued), none a closed connection ($lost other)" \
  test "$lost" = 0

summary
[ "$failed" = 0 ]
