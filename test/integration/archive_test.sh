#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# End-to-end test of the job archive (issue 14) with REAL parts: Debian's
# Prometheus, a real SQLite file, a real MariaDB, `petricore archive`,
# `petricore serve` (its archiver and its routes) and `petricore report`.
#
#   * Prometheus P1 holds two FINISHED jobs backfilled by lib/synthetic_jobs.py
#     (a 1-hour window ending 3 hours ago): job A of alice, account research,
#     4 nodes x 4 CPUs, 8000 MB each, CPU time 1.25 + 1.3 + 1.3 + 1.35 =
#     5.2 core-hours, resident peaks 2000 + 2500 + 3000 + 3500 = 11000 MB;
#     job B of bob, account physics, 4 CPUs, 8000 MB, resident 7000 MB, GPUs
#     0 and 1 idle (utilisation 0). Accounting is the jobs_info series.
#   * `petricore archive --since` stores both into an SQLite file, then
#     stores nothing more when run again.
#   * serve then runs over an EMPTY Prometheus P2 (the jobs' samples gone):
#     the usage JSON, the page, a chart, the PDF and the mail come from the
#     archive ("source": "archive", the rest byte for byte what P1 gave),
#     the user route lists the archived jobs, and /api/v1/efficiency and
#     /efficiency give the hand-computed sums below, through the
#     authorisation matrix (anonymous, owner, other, account manager, admin).
#     Hand-computed, by account over the day:
#       research: 1 job, 16 core-hours allocated, 5.2 used, 32.5 %, 10.8
#         wasted, 31.25 GB-hours requested (32000 MB x 1 h), 10.74 used;
#       physics: 1 job, 4 core-hours allocated, GPU-hours 2 allocated, 2 idle.
#   * `report --user alice` and `report --account research --json` print the
#     same figures from the archive alone; `report A --json` over P2 answers
#     from the archive as serve does, and a report never creates an archive.
#   * A damaged archive file: serve starts, /healthz says "degraded" naming
#     the file, petricore_archive_errors_total counts, the job routes answer.
#   * MariaDB: two serve instances whose archivers share one archive database
#     fill it without storing a job twice and answer the same fleet view;
#     with MariaDB stopped, /healthz says "degraded" and the jobs are still
#     answered from Prometheus.
#
# Usage: archive_test.sh PETRICORE_BINARY. Exit 77 with "SKIPPED: <why>"
# without prometheus, promtool, curl, jq, python3 or sqlite's library; the
# MariaDB part is skipped alone (with a line) without MariaDB.
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$(dirname "$0")/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/serve.sh
source "$(dirname "$0")/../../scripts/lib/serve.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/mariadb.sh
source "$(dirname "$0")/../../scripts/lib/mariadb.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
why=$(prom_unavailable promtool jq python3)
[ -z "$why" ] || skip "$why"
ldconfig -p 2>/dev/null | grep -q 'libsqlite3.so.0 ' || skip "libsqlite3.so.0 is not installed"
loopback_without_proxy

T=$(mktemp -d /tmp/petricore-archivetest.XXXXXX) || bail "create a temp dir"
SERVE_PIDS='' P1_PID='' P2_PID=''
cleanup() {
  local pid
  for pid in $SERVE_PIDS; do stop_pid "$pid"; done
  stop_pid "$P1_PID"
  stop_pid "$P2_PID"
  mariadb_stop
  [ "$failed" -gt 0 ] && tail_logs 15 "$T"/*.log
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

status() { curl -s -o "$T/body" -w '%{http_code}' --max-time 20 "$@"; }
as() {
  local user=$1
  shift
  if [ "$user" = anonymous ]; then status "$@"; else status -H "X-Remote-User: $user" "$@"; fi
}
# verdict DESCRIPTION STATUS: ok when STATUS (of the test just before it) is 0.
verdict() { if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1"; fi; }
# near VALUE WANT: |VALUE - WANT| <= 0.01
near() { python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) <= 0.01 else 1)' "$1" "$2" 2>/dev/null; }
# serve_up NAME CONFIG ARGS...: a serve in the background, its pid in SERVE_PIDS, its URL in SERVE_URL.
serve_up() {
  local name=$1 config=$2
  shift 2
  local port
  port=$(free_ports 1)
  SERVE_URL=http://127.0.0.1:$port
  "$PETRICORE" --config "$config" --log-level info serve --listen "127.0.0.1:$port" --auth header \
    --admin carol --account-manager research:dave "$@" </dev/null >"$T/$name.log" 2>&1 &
  SERVE_PIDS="$SERVE_PIDS $!"
  wait_ready serve "$!" "$SERVE_URL/healthz" "$T/$name.log" 15
}

# --- P1: jobs A and B
JOB_A=$(random_job_id)
JOB_B=$((JOB_A + 1))
END=$(prom_backfill_end)
START=$((END - 3600))
prom_backfill_synthetic "$T/data.om" "$T/tsdb1" "$JOB_A" "$JOB_B" "$START" "$END" || bail "backfill $T/data.om"
prom_start "$T/p1" "$T/tsdb1" || bail "start prometheus P1"
P1_PID=$PROM_PID P1_URL=$PROM_URL
PROM_PORT=

cat >"$T/sqlite.toml" <<EOF
[archive]
store = "sqlite"
path = "$T/archive.db"
cluster = "test"
interval = 300
EOF
SINCE=$((START - 3600))
since_text=$(date -u -d "@$SINCE" +%Y-%m-%dT%H:%M:%S)
# The fleet answers compared across servers name their end: a default "now"
# moves on between them (and a minute boundary changes the answer's until).
until_text=$(date -u -d "@$((END + 3600))" +%Y-%m-%dT%H:%M:%S)
common=(--prometheus "$P1_URL" --accounting prometheus)

# --- petricore archive: a backfill, then again (idempotent)
out=$("$PETRICORE" --config "$T/sqlite.toml" archive --quiet --since "$since_text" "${common[@]}" 2>"$T/archive1.err")
rc=$?
[ "$rc" = 0 ] \
  && [[ "$out" == "2 jobs archived (0 from accounting alone), 0 archived before, 0 skipped into sqlite at $T/archive.db (cluster test)" ]]
verdict "archive --since stores both jobs (rc $rc: $out)" $?
out=$("$PETRICORE" --config "$T/sqlite.toml" archive --quiet --since "$since_text" "${common[@]}" 2>"$T/archive2.err")
[[ "$out" == "0 jobs archived (0 from accounting alone), 2 archived before, 0 skipped"* ]]
verdict "archive again stores nothing twice ($out)" $?
out=$("$PETRICORE" --config "$T/sqlite.toml" archive --since yesterday "${common[@]}" 2>&1)
rc=$?
[ "$rc" = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] \
  && [[ "$out" == *"--since must be"* ]]
verdict "archive --since with a bad date: exit 2 and one line ($out)" $?
out=$("$PETRICORE" --config "$T/sqlite.toml" archive --until now "${common[@]}" 2>&1)
rc=$?
[ "$rc" = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [[ "$out" == *"--until needs --since"* ]]
verdict "archive --until without --since: exit 2 and one line ($out)" $?

# What P1 answers, to compare the archive's answers with.
"$PETRICORE" report "$JOB_A" --json "${common[@]}" >"$T/a_live.json" 2>"$T/report_live.err" ||
  not_ok "report $JOB_A --json from P1"

# --- serve over an empty Prometheus: the archive answers
prom_start "$T/p2" "$T/tsdb2" || bail "start prometheus P2"
P2_PID=$PROM_PID P2_URL=$PROM_URL
serve_up sqlite "$T/sqlite.toml" --prometheus "$P2_URL" --accounting prometheus || bail "serve over the archive"
S=$SERVE_URL

code=$(as alice "$S/api/v1/jobs/$JOB_A/usage")
[ "$code" = 200 ] && [ "$(jq -r .source "$T/body")" = archive ]
verdict "usage of archived job A: 200 with source archive" $?
if [ "$code" = 200 ] && diff <(jq -S 'del(.source)' "$T/body") <(jq -S . "$T/a_live.json") >"$T/usage.diff"; then
  ok "the archived usage JSON is what Prometheus gave, key for key"
else
  not_ok "the archived usage JSON differs from P1's: $(head -c 300 "$T/usage.diff")"
fi
for who_code in anonymous:401 bob:403 carol:200 dave:200; do
  who=${who_code%%:*} want=${who_code#*:}
  code=$(as "$who" "$S/api/v1/jobs/$JOB_A/usage")
  check "archived job A (research) as $who: $want" [ "$code" = "$want" ]
done
code=$(as dave "$S/api/v1/jobs/$JOB_B/usage")
check "archived job B (physics) as dave, research's manager: 403" [ "$code" = 403 ]
code=$(as alice "$S/jobs/$JOB_A")
[ "$code" = 200 ] && grep -q "<img" "$T/body"
verdict "job page of archived job A: 200 HTML with its charts" $?
code=$(as alice "$S/plot/$JOB_A/jobs_cpu_percent")
[ "$code" = 200 ] && [ "$(head -c 4 "$T/body" | tail -c 3)" = PNG ]
verdict "chart of archived job A: a PNG" $?
code=$(as alice "$S/pdf/$JOB_A")
[ "$code" = 200 ] && [ "$(head -c 4 "$T/body")" = "%PDF" ]
verdict "PDF of archived job A" $?
code=$(as alice "$S/mail/$JOB_A")
[ "$code" = 200 ] && grep -q "WARNING=true" "$T/body"
verdict "mail of archived job A, with its findings" $?
code=$(as alice "$S/api/v1/users/alice")
[ "$code" = 200 ] \
  && [ "$(jq -r --argjson id "$JOB_A" '[.archived_jobs[] | select(.jobid == $id)] | length' "$T/body")" = 1 ]
verdict "alice's user route lists archived job A" $?

# --- the fleet view
U="$S/api/v1/efficiency?by=account&since=$since_text&until=$until_text"
code=$(as carol "$U")
check "efficiency by account as admin: 200" [ "$code" = 200 ]
cp "$T/body" "$T/fleet_admin.json"
research='.groups[] | select(.name == "research")'
physics='.groups[] | select(.name == "physics")'
[ "$(jq '.groups | length' "$T/fleet_admin.json")" = 2 ] \
  && [ "$(jq .total.jobs "$T/fleet_admin.json")" = 2 ]
verdict "efficiency: two groups, 2 jobs in all" $?
\
  [ "$(jq "$research | .jobs" "$T/fleet_admin.json")" = 1 ] \
  && near "$(jq "$research | .core_hours.allocated" "$T/fleet_admin.json")" 16 \
  && near "$(jq "$research | .core_hours.used" "$T/fleet_admin.json")" 5.2 \
  && near "$(jq "$research | .core_hours.wasted" "$T/fleet_admin.json")" 10.8
verdict "research: 1 job, 16 core-hours allocated, 5.2 used, 10.8 wasted" $?
check "research: CPU efficiency 32.5 %" near "$(jq "$research | .cpu_efficiency" "$T/fleet_admin.json")" 32.5
\
  near "$(jq "$research | .memory_gb_hours.requested" "$T/fleet_admin.json")" 31.25 \
  && near "$(jq "$research | .memory_gb_hours.used" "$T/fleet_admin.json")" 10.74
verdict "research: memory 31.25 GB-hours requested, 10.74 used" $?
\
  near "$(jq "$physics | .core_hours.allocated" "$T/fleet_admin.json")" 4 \
  && near "$(jq "$physics | .gpu_hours.allocated" "$T/fleet_admin.json")" 2 \
  && near "$(jq "$physics | .gpu_hours.idle" "$T/fleet_admin.json")" 2
verdict "physics: 4 core-hours allocated, 2 GPU-hours allocated, 2 idle" $?
check "research: the cpu_efficiency finding counted" [ "$(jq "$research | .findings.cpu_efficiency" "$T/fleet_admin.json")" = 1 ]
check "the worst job is A, with its id" [ "$(jq '.worst_jobs[0].jobid' "$T/fleet_admin.json")" = "$JOB_A" ]

code=$(as alice "$U")
[ "$code" = 200 ] && [ "$(jq .total.jobs "$T/body")" = 1 ] \
  && [ "$(jq -r '.groups[0].name' "$T/body")" = research ] && [ "$(jq -r .user "$T/body")" = alice ]
verdict "efficiency as alice: her own jobs only" $?
code=$(as bob "$U&user=alice")
check "efficiency of alice as bob: 403" [ "$code" = 403 ]
code=$(as dave "$U&account=research")
[ "$code" = 200 ] \
  && [ "$(jq .total.jobs "$T/body")" = 1 ]
verdict "efficiency of research as its manager dave: 200, alice's job" $?
code=$(as dave "$U&account=physics")
check "efficiency of physics as dave: 403" [ "$code" = 403 ]
code=$(as anonymous "$U")
check "efficiency anonymous: 401" [ "$code" = 401 ]
code=$(as carol "$S/api/v1/efficiency?by=group")
[ "$code" = 400 ] && [[ "$(jq -r .error "$T/body")" == *"by"* ]]
verdict "efficiency ?by=group: 400 naming by" $?
code=$(as carol "$S/api/v1/efficiency?since=lastweek")
[ "$code" = 400 ] && [[ "$(jq -r .error "$T/body")" == *"since"* ]]
verdict "efficiency ?since=lastweek: 400 naming since" $?
code=$(as carol "$S/api/v1/efficiency?since=now&until=30d")
check "efficiency with since after until: 400" [ "$code" = 400 ]
code=$(as carol "$S/efficiency?by=user&since=$since_text")
[ "$code" = 200 ] \
  && grep -q alice "$T/body" && grep -q "/jobs/$JOB_A" "$T/body"
verdict "the /efficiency page: 200 HTML naming alice and linking job A" $?
body=$(curl -s --max-time 5 "$S/healthz")
check "healthz: ok ($body)" [ "$body" = ok ]
curl -s --max-time 5 "$S/metrics" >"$T/metrics.txt"
check "metrics: petricore_archive_errors_total 0" grep -q '^petricore_archive_errors_total 0' "$T/metrics.txt"

# --- report JOBID over the empty Prometheus: the archive answers as serve does
"$PETRICORE" --config "$T/sqlite.toml" report "$JOB_A" --json --prometheus "$P2_URL" --accounting prometheus \
  >"$T/a_report.json" 2>"$T/a_report.err"
rc=$?
[ "$rc" = 0 ] && [ "$(jq -r .source "$T/a_report.json")" = archive ] \
  && diff <(jq -S 'del(.source)' "$T/a_report.json") <(jq -S . "$T/a_live.json") >/dev/null
verdict "report $JOB_A --json over an empty Prometheus: the archive's JSON (rc $rc)" $?
out=$("$PETRICORE" --config "$T/sqlite.toml" report "$JOB_A" --prometheus "$P2_URL" --accounting prometheus 2>&1)
[[ "$out" == *"from the job archive"* ]] && [[ "$out" == *alice* ]]
verdict "report $JOB_A in the terminal: from the job archive" $?
sed "s|$T/archive.db|$T/none/archive.db|" "$T/sqlite.toml" >"$T/absent.toml"
out=$("$PETRICORE" --config "$T/absent.toml" report "$JOB_A" --prometheus "$P2_URL" --accounting prometheus 2>&1)
rc=$?
[ "$rc" != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && [ ! -e "$T/none" ]
verdict "report of a job nobody has: one line, exit $rc, no archive created ($out)" $?

# --- report from the archive alone
out=$("$PETRICORE" --config "$T/sqlite.toml" report --user alice --since "$since_text" 2>&1)
[ $? = 0 ] && [[ "$out" == *research* ]]
verdict "report --user alice: her job in the terminal" $?
"$PETRICORE" --config "$T/sqlite.toml" report --account research --since "$since_text" --json >"$T/report_fleet.json" 2>&1
\
  near "$(jq .total.core_hours.allocated "$T/report_fleet.json")" 16 \
  && near "$(jq .total.cpu_efficiency "$T/report_fleet.json")" 32.5
verdict "report --account research --json: 16 core-hours, 32.5 %" $?
out=$("$PETRICORE" --config "$T/sqlite.toml" report --user alice --account research 2>&1)
[ $? = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ]
verdict "report --user with --account: exit 2, one line" $?

# --- a damaged archive file: serve starts, says degraded, answers
head -c 8192 /dev/urandom >"$T/damaged.db"
sed "s|$T/archive.db|$T/damaged.db|" "$T/sqlite.toml" >"$T/damaged.toml"
if serve_up damaged "$T/damaged.toml" --prometheus "$P1_URL" --accounting prometheus; then
  ok "serve starts over a damaged archive file"
  D=$SERVE_URL
  body=''
  for _ in $(seq 1 50); do
    body=$(curl -s --max-time 5 "$D/healthz")
    [[ "$body" == degraded* ]] && break
    sleep 0.2
  done
  [[ "$body" == "degraded: archive: "*"$T/damaged.db"* ]]
  verdict "healthz: degraded, naming the file ($body)" $?
  [ "$(grep -c "damaged.db" "$T/damaged.log")" -ge 1 ] \
    && [ "$(grep -c "damaged.db" "$T/damaged.log")" -le 2 ]
  verdict "the log names the file once" $?
  curl -s --max-time 5 "$D/metrics" >"$T/metrics_damaged.txt"
  check "metrics: petricore_archive_errors_total counts" \
    grep -Eq '^petricore_archive_errors_total [1-9]' "$T/metrics_damaged.txt"
  code=$(as alice "$D/api/v1/jobs/$JOB_A/usage")
  [ "$code" = 200 ] \
    && [ "$(jq -r '.source // "none"' "$T/body")" = none ]
  verdict "job A still answered from Prometheus: 200 without source" $?
else
  not_ok "serve starts over a damaged archive file: $(tail -n 3 "$T/damaged.log")"
fi

# --- MariaDB: one archive, two serve instances
why=$(mariadb_unavailable)
if [ -n "$why" ]; then
  echo "# MariaDB part skipped: $why"
else
  if mariadb_start "$T/mariadb"; then
    printf 'archive-secret\n' >"$T/db.password"
    chmod 600 "$T/db.password"
    mariadb_root -e "CREATE DATABASE petricore_archive CHARACTER SET utf8mb4;
      CREATE USER 'petricore'@'localhost' IDENTIFIED BY 'archive-secret';
      GRANT CREATE, ALTER, INDEX, SELECT, INSERT, UPDATE, DELETE ON petricore_archive.* TO 'petricore'@'localhost';" ||
      not_ok "create the archive database"
    cat >"$T/mariadb.toml" <<EOF
[archive]
store = "mariadb"
cluster = "test"
interval = 1
backfill = 86400
[archive.db]
socket = "$MDB_SOCKET"
user = "petricore"
password_file = "$T/db.password"
database = "petricore_archive"
EOF
    serve_up m1 "$T/mariadb.toml" --prometheus "$P1_URL" --accounting prometheus || not_ok "serve m1 on MariaDB"
    M1=$SERVE_URL
    serve_up m2 "$T/mariadb.toml" --prometheus "$P1_URL" --accounting prometheus || not_ok "serve m2 on MariaDB"
    M2=$SERVE_URL
    rows=0
    for _ in $(seq 1 100); do
      rows=$(mariadb_root -N -e "SELECT COUNT(*) FROM petricore_archive.archived_jobs" 2>/dev/null)
      [ "${rows:-0}" -ge 2 ] && break
      sleep 0.2
    done
    sleep 3  # both archivers have had a few more passes
    rows=$(mariadb_root -N -e "SELECT COUNT(*), COUNT(DISTINCT job_id), MAX(version) FROM petricore_archive.archived_jobs")
    check "two archivers on one MariaDB: 2 rows, 2 jobs, version 1 ($rows)" [ "$(echo "$rows" | tr '\t' ' ')" = "2 2 1" ]
    as carol "$M1/api/v1/efficiency?by=account&since=$since_text&until=$until_text" >/dev/null && cp "$T/body" "$T/m1.json"
    as carol "$M2/api/v1/efficiency?by=account&since=$since_text&until=$until_text" >/dev/null && cp "$T/body" "$T/m2.json"
    [ -s "$T/m1.json" ] \
      && diff <(jq -S . "$T/m1.json") <(jq -S . "$T/m2.json") >"$T/fleet.diff" \
      && diff <(jq -S . "$T/m1.json") <(jq -S . "$T/fleet_admin.json") >"$T/fleet.diff"
    rc=$?
    verdict "both instances answer the same fleet view, the SQLite one's: $(head -c 600 "$T/fleet.diff")" "$rc"
    mariadb_stop
    body=''
    for _ in $(seq 1 60); do
      body=$(curl -s --max-time 5 "$M1/healthz")
      [[ "$body" == degraded* ]] && break
      sleep 0.5
    done
    [[ "$body" == "degraded: archive: "* ]]
    verdict "MariaDB down: healthz degraded ($body)" $?
    code=$(as alice "$M1/api/v1/jobs/$JOB_A/usage")
    check "MariaDB down: job A still answered from Prometheus" [ "$code" = 200 ]
  else
    not_ok "start MariaDB"
  fi
fi

summary
[ "$failed" = 0 ]
