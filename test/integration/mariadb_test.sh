#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# `petricore init-db` and the DB accounting source against a REAL MariaDB
# (Debian's mariadb-server 10.11), started on 127.0.0.1:<free port> and a
# socket over a temp datadir, holding a slurm_acct_db shaped like slurmdbd's
# (lib/slurm_acct_db.sql: cluster `itest`, jobs of root, pcalice and pcbob:
# running, OUT_OF_MEMORY, an array task, a het job, GPUs, pending, deleted).
#
# Checks: init-db creates the user, the job and step views and their grants,
# the job archive's database `petricore` (utf8mb4) and the archive's grant
# there, and a second run changes nothing; SHOW GRANTS holds exactly USAGE +
# SELECT on the two views + SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX,
# ALTER on petricore.*; the new user reads the views, is denied the tables,
# and creates, alters, writes and reads a table in the archive database (no
# DROP, nothing written in slurm_acct_db); an out-of-date view or a missing
# grant is put right; `report --json --accounting db` maps jobs from the view
# (an empty Prometheus for the started ones); the hidden [mariadb] unit tests
# (the source's records with their steps' TotalCPU, MaxRSS and task layout,
# user lists, jobs ended in a window, threads, reconnection); --dry-run shows
# <redacted>; a password with quotes stays data; --archive-database none
# grants nothing beyond the views, and a name with '_' is granted escaped;
# --drop removes the user (its grants with it) and the views (keeping views
# another web host's account still reads) and keeps the archive database and
# its data; bad input (a world-readable password file among it) exits 2 and a
# refused DB 1, in one line.
#
# Usage: mariadb_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 with "SKIPPED: <why>" when MariaDB
# (or python3, jq) is missing. KEEP=1 keeps the temp dir. PETRICORE_UNIT_TESTS
# names the unit test binary (default: beside the petricore build).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/mariadb.sh
source "$here/../../scripts/lib/mariadb.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$here/../../scripts/lib/prometheus.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
UNIT_TESTS=${PETRICORE_UNIT_TESTS:-$(dirname "$PETRICORE")/../test/unit/unit_tests}

# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
why=$(mariadb_unavailable)
[ -z "$why" ] || skip "$why"
for tool in python3 jq; do command -v $tool >/dev/null 2>&1 || skip "$tool is not installed"; done
"$PETRICORE" init-db --help >/dev/null 2>&1 || skip "$PETRICORE has no init-db subcommand yet"

loopback_without_proxy


T=$(mktemp -d /tmp/petricore-mariadb.XXXXXX)
cleanup() {
  mariadb_stop
  prom_stop 2>/dev/null
  remove_temp_dir "$T"
}
trap cleanup EXIT

mariadb_start "$T/mariadb" || bail "MariaDB did not start"
ok "MariaDB started on 127.0.0.1:$MDB_PORT (pid $MDB_PID)"
mariadb_root <"$here/../../scripts/lib/slurm_acct_db.sql" || bail "could not load scripts/lib/slurm_acct_db.sql"

# A password with quotes, a backslash and a backquote: it must stay data.
password="it's a \"test\" \\\` $RANDOM$RANDOM"
printf '%s\n' "$password" >"$T/password"
printf 'not-the-password\n' >"$T/wrong-password"
chmod 600 "$T/password" "$T/wrong-password"  # a password file others can read is refused

init_db() {  # init_db ARGS...: stdout to $T/out, stderr to $T/err, returns the status
  "$PETRICORE" init-db --cluster itest --password-file "$T/password" --db-socket "$MDB_SOCKET" "$@" \
    >"$T/out" 2>"$T/err"
}
# The state init-db leaves: accounts, their grants, the view's definition.
snapshot() {
  mariadb_root -N -e "SELECT User, Host, authentication_string FROM mysql.user WHERE User = 'petricore' ORDER BY Host;
    SELECT TABLE_NAME, SECURITY_TYPE, VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'slurm_acct_db'
      ORDER BY TABLE_NAME;
    SELECT GRANTEE, PRIVILEGE_TYPE, TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLE_PRIVILEGES
      WHERE GRANTEE LIKE '%petricore%' ORDER BY GRANTEE, TABLE_SCHEMA, TABLE_NAME, PRIVILEGE_TYPE;
    SELECT GRANTEE, PRIVILEGE_TYPE, TABLE_SCHEMA FROM information_schema.SCHEMA_PRIVILEGES
      WHERE GRANTEE LIKE '%petricore%' ORDER BY GRANTEE, TABLE_SCHEMA, PRIVILEGE_TYPE;
    SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA ORDER BY SCHEMA_NAME;"
}
archive_privileges='SELECT, INSERT, UPDATE, DELETE, CREATE, INDEX, ALTER'
# one_line_error NAME EXPECTED-STATUS EXPECTED-SUBSTRING: judges the last init_db/petricore run.
one_line_error() {
  local name=$1 want_rc=$2 want=$3 rc=$4 lines
  lines=$(wc -l <"$T/err")
  if [ "$rc" -eq "$want_rc" ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$T/err"; then
    ok "$name: exit $rc, one line: $(cat "$T/err")"
  else
    not_ok "$name: exit $rc (want $want_rc), $lines stderr lines: $(head -c 300 "$T/err")"
  fi
}

# ---- init-db, twice ----
init_db --web-host 127.0.0.1
rc=$?
if [ $rc -eq 0 ] && grep -q "^created user 'petricore'@'127.0.0.1'" "$T/out" &&
  grep -qx 'created view slurm_acct_db.user_job_view' "$T/out" &&
  grep -qx 'created view slurm_acct_db.user_step_view' "$T/out" &&
  grep -qx "granted SELECT on slurm_acct_db.user_job_view to 'petricore'@'127.0.0.1'" "$T/out" &&
  grep -qx "granted SELECT on slurm_acct_db.user_step_view to 'petricore'@'127.0.0.1'" "$T/out" &&
  grep -qx 'created database petricore (utf8mb4) for the job archive' "$T/out" &&
  grep -qx "granted $archive_privileges on petricore.\\* to 'petricore'@'127.0.0.1'" "$T/out" &&
  grep -q "^verified as 'petricore'@'127.0.0.1'.*(10 jobs, 14 steps).*itest_job_table and itest_step_table are denied" \
    "$T/out" &&
  grep -qx "verified as 'petricore'@'127.0.0.1': the archive database petricore takes tables, indexes and rows" \
    "$T/out"; then
  ok "first init-db creates the user, the two views, the archive database and the grants, and verifies by logging in"
else
  not_ok "first init-db: exit $rc: $(cat "$T/out" "$T/err")"
fi
snapshot >"$T/state1"
init_db --web-host 127.0.0.1
rc=$?
snapshot >"$T/state2"
if [ $rc -eq 0 ] &&
  grep -q '^nothing to change: .*user_job_view and slurm_acct_db.user_step_view and the archive database petricore are already' \
    "$T/out" && ! grep -qE '^(created|granted|replaced|set)' "$T/out" && cmp -s "$T/state1" "$T/state2"; then
  ok "second init-db changes nothing and says so: $(head -n 1 "$T/out")"
else
  not_ok "second init-db: exit $rc: $(cat "$T/out" "$T/err"); state diff: $(diff "$T/state1" "$T/state2" | head -5)"
fi

grants=$(mariadb_root -N -e "SHOW GRANTS FOR 'petricore'@'127.0.0.1'")
if [ "$(echo "$grants" | wc -l)" -eq 4 ] &&
  echo "$grants" | grep -qx "GRANT USAGE ON \*\.\* TO \`petricore\`@\`127.0.0.1\` IDENTIFIED BY PASSWORD '\*[0-9A-F]\{40\}'" &&
  echo "$grants" | grep -qx 'GRANT SELECT ON `slurm_acct_db`.`user_job_view` TO `petricore`@`127.0.0.1`' &&
  echo "$grants" | grep -qx 'GRANT SELECT ON `slurm_acct_db`.`user_step_view` TO `petricore`@`127.0.0.1`' &&
  echo "$grants" | grep -qx "GRANT $archive_privileges ON \`petricore\`.\* TO \`petricore\`@\`127.0.0.1\`"; then
  ok "SHOW GRANTS: exactly USAGE, SELECT on slurm_acct_db.user_job_view and user_step_view, the archive's on petricore.*"
else
  not_ok "SHOW GRANTS: $grants"
fi
if grep -qF "$password" "$T/mariadb/error.log" "$T/out" "$T/err" 2>/dev/null; then
  not_ok "the password shows in the server log or init-db's output"
else
  ok "the password shows neither in the server log nor in init-db's output"
fi

# ---- the new user: the views yes, the tables no ----
as_petricore() { MYSQL_PWD=$password mariadb --no-defaults -h127.0.0.1 -P"$MDB_PORT" -upetricore -N "$@"; }
rows=$(as_petricore -e 'SELECT COUNT(*) FROM slurm_acct_db.user_job_view' 2>&1)
check "petricore reads the view over TCP (10 jobs; the deleted one is hidden): $rows" [ "$rows" = 10 ]
rows=$(as_petricore -e 'SELECT COUNT(*) FROM slurm_acct_db.user_step_view' 2>&1)
check "petricore reads the step view over TCP (14 steps; the deleted one is hidden): $rows" [ "$rows" = 14 ]
# The steps of job 101 (job_db_inx from the job view) and their CPU time in
# microseconds, user + system, as sacct adds them up (TotalCPU 5.949046 s).
out=$(as_petricore -e "SELECT s.id_step, s.task_cnt, (s.user_sec + s.sys_sec) * 1000000 + s.user_usec + s.sys_usec
  FROM slurm_acct_db.user_job_view j JOIN slurm_acct_db.user_step_view s ON s.job_db_inx = j.job_db_inx
  WHERE j.id_job = 101 ORDER BY s.id_step" 2>&1 | tr '\t\n' ', ')
check "the step view joins the job view on job_db_inx (101: batch, extern, step 0 of 2 tasks): $out" \
  [ "$out" = "-5,1,18422 -4,1,1761 0,2,5928863 " ]
out=$(as_petricore -e 'SELECT step_name FROM slurm_acct_db.user_step_view LIMIT 1' 2>&1)
check "the step view has no step names (nor command lines, node lists)" grep -q "ERROR 1054" <<<"$out"
for table in itest_job_table itest_assoc_table tres_table itest_step_table; do
  out=$(as_petricore -e "SELECT 1 FROM slurm_acct_db.$table LIMIT 1" 2>&1)
  case "$out" in
    *"ERROR 1142"*) ok "petricore is denied slurm_acct_db.$table (ERROR 1142)" ;;
    *) not_ok "petricore and slurm_acct_db.$table: $out" ;;
  esac
done

# ---- the new user in the archive database: its tables and rows, no more ----
charset=$(mariadb_root -N -e "SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA
  WHERE SCHEMA_NAME = 'petricore'")
check "the archive database petricore is utf8mb4: $charset" [ "$charset" = utf8mb4 ]
out=$(as_petricore -D petricore -e "CREATE TABLE archived_probe (id BIGINT NOT NULL PRIMARY KEY, body TEXT);
  CREATE INDEX archived_probe_body ON archived_probe (body(16));
  ALTER TABLE archived_probe ADD COLUMN version INT NOT NULL DEFAULT 1;
  INSERT INTO archived_probe (id, body) VALUES (4242, 'Zoë''s job');
  UPDATE archived_probe SET version = 2 WHERE id = 4242;
  SELECT id, body, version FROM archived_probe" 2>&1)
check "petricore creates, indexes, alters, writes and reads a table in the archive database: $out" \
  [ "$out" = "$(printf '4242\tZoë'"'"'s job\t2')" ]
out=$(as_petricore -e 'DELETE FROM petricore.archived_probe WHERE id = 1' 2>&1)
check "... deletes rows there: $out" [ -z "$out" ]
out=$(as_petricore -e 'DROP TABLE petricore.archived_probe' 2>&1)
check "... but may not drop a table (no DROP): $out" grep -q "ERROR 1142" <<<"$out"
out=$(as_petricore -e 'CREATE TABLE slurm_acct_db.petricore_probe (id INT)' 2>&1)
check "... creates nothing in slurm_acct_db: $out" grep -q "ERROR 1142" <<<"$out"
out=$(as_petricore -e 'CREATE DATABASE petricore_other' 2>&1)
check "... nor another database: $out" grep -q "ERROR 1044" <<<"$out"
out=$(as_petricore -e 'SELECT COUNT(*) FROM slurm_acct_db.itest_job_table' 2>&1)
check "... and still cannot read the job table: $out" grep -q "ERROR 1142" <<<"$out"

# ---- out of date: a view of the previous version, a lost grant ----
mariadb_root -e "CREATE OR REPLACE SQL SECURITY DEFINER VIEW slurm_acct_db.user_job_view AS
    SELECT id_job, id_user FROM slurm_acct_db.itest_job_table WHERE deleted = 0;
  REVOKE SELECT ON slurm_acct_db.user_step_view FROM 'petricore'@'127.0.0.1';
  REVOKE ALTER ON petricore.* FROM 'petricore'@'127.0.0.1'"
init_db --web-host 127.0.0.1
rc=$?
if [ $rc -eq 0 ] && grep -qx 'replaced view slurm_acct_db.user_job_view' "$T/out" &&
  ! grep -q 'view slurm_acct_db.user_step_view' "$T/out" &&
  grep -qx "granted SELECT on slurm_acct_db.user_step_view to 'petricore'@'127.0.0.1'" "$T/out" &&
  grep -qx "granted $archive_privileges on petricore.\\* to 'petricore'@'127.0.0.1'" "$T/out" &&
  ! grep -q 'created database' "$T/out" &&
  ! grep -q 'granted SELECT on slurm_acct_db.user_job_view' "$T/out" && grep -q '^verified as' "$T/out"; then
  ok "init-db replaces an out-of-date job view and restores the step view's and the archive's grants, nothing else"
else
  not_ok "init-db over an old view and a lost grant: exit $rc: $(cat "$T/out" "$T/err")"
fi
snapshot >"$T/state3"
check "... and leaves the state the first run made" cmp -s "$T/state1" "$T/state3"
init_db --web-host 127.0.0.1
check "... after which a further run says the views are current" grep -q '^nothing to change' "$T/out"
out=$(as_petricore -e 'SHOW DATABASES' 2>&1)
check "petricore sees only information_schema, its archive petricore and slurm_acct_db: $(echo "$out" | tr '\n' ' ')" \
  [ "$(echo "$out" | sort | tr '\n' ' ')" = "information_schema petricore slurm_acct_db " ]
out=$(MYSQL_PWD=not-it mariadb --no-defaults -h127.0.0.1 -P"$MDB_PORT" -upetricore -e 'SELECT 1' 2>&1)
check "a wrong password is refused" grep -q "ERROR 1045" <<<"$out"

# ---- the DB accounting source, through report ----
db_flags=(--accounting db --db-host 127.0.0.1 --db-port "$MDB_PORT" --db-password-file "$T/password")
report() {  # report ID [PROMETHEUS]: JSON to $T/json, stderr to $T/err, returns the status
  "$PETRICORE" report "$1" --json "${db_flags[@]}" --prometheus "${2:-http://127.0.0.1:9}" >"$T/json" 2>"$T/err"
}
jq_is() {  # jq_is NAME FILTER EXPECTED
  local got
  got=$(jq -c "$2" "$T/json" 2>&1)
  if [ "$got" = "$3" ]; then ok "$1: $2 = $3"; else not_ok "$1: $2 = $got, want $3"; fi
}
report 304
rc=$?
if [ $rc -eq 0 ]; then
  jq_is "pending job 304 from the view (no Prometheus needed)" '[.jobid, .username, .sponsor, .state, .start]' \
    '[304,"pcbob","research","PENDING",null]'
else
  not_ok "report 304 --accounting db: exit $rc: $(cat "$T/err")"
fi
report 999
one_line_error "unknown job 999 from the view" 2 "job 999 not found in the accounting DB" $?
"$PETRICORE" report 201 --json --accounting db --db-host 127.0.0.1 --db-port "$MDB_PORT" \
  --db-password-file "$T/wrong-password" --prometheus http://127.0.0.1:9 >"$T/json" 2>"$T/err"
one_line_error "wrong DB password" 1 "Access denied for user 'petricore'" $?
"$PETRICORE" report 201 --json --accounting db --db-host 127.0.0.1 --db-port "$MDB_PORT" \
  --db-password-file "$T/none" --prometheus http://127.0.0.1:9 >"$T/json" 2>"$T/err"
one_line_error "missing DB password file" 2 "$T/none" $?

why=$(prom_unavailable)
if [ -n "$why" ]; then
  echo "# started jobs through report not checked: $why (the [mariadb] unit tests below cover them)"
elif ! prom_start "$T/prometheus" "$T/prometheus/tsdb" >/dev/null 2>&1; then
  not_ok "an empty Prometheus did not start: $(tail -n 3 "$T/prometheus/prometheus.log" 2>/dev/null)"
else
  if report 201 "$PROM_URL"; then
    jq_is "OOM job 201" '[.username, .sponsor, .state, .start != null, .end != null]' \
      '["pcalice","research","OUT_OF_MEMORY",true,true]'
    jq_is "OOM job 201 allocation" '.alloc_tres | [.billing, .alloc_cpu, .alloc_mem, .alloc_nodes, .alloc_gpu]' \
      '[1,1,64,"vm",0]'
  else
    not_ok "report 201: exit $?: $(cat "$T/err")"
  fi
  if report 102 "$PROM_URL"; then
    jq_is "running job 102" '[.username, .state, .end, .alloc_tres.alloc_nodes, .alloc_tres.alloc_cpu]' \
      '["root","RUNNING",null,"node[01-02]",4]'
  else
    not_ok "report 102: exit $?: $(cat "$T/err")"
  fi
  if report 210_3 "$PROM_URL"; then
    jq_is "array task 210_3 (raw id 213)" '[.username, .state, .alloc_tres.alloc_mem]' '["pcalice","COMPLETED",100]'
  else
    not_ok "report 210_3: exit $?: $(cat "$T/err")"
  fi
  if report 202 "$PROM_URL"; then
    jq_is "GPU job 202 (gres/gpu is TRES 1001)" '.alloc_tres | [.alloc_gpu, .alloc_cpu, .billing]' '[2,8,10]'
  else
    not_ok "report 202: exit $?: $(cat "$T/err")"
  fi
  prom_stop
fi

if [ -x "$UNIT_TESTS" ]; then
  if PETRICORE_TEST_DB_HOST=127.0.0.1 PETRICORE_TEST_DB_PORT=$MDB_PORT PETRICORE_TEST_DB_SOCKET=$MDB_SOCKET \
    PETRICORE_TEST_DB_PASSWORD_FILE=$T/password PETRICORE_TEST_DB_WRONG_PASSWORD_FILE=$T/wrong-password \
    "$UNIT_TESTS" '[mariadb]' --reporter compact >"$T/unit.log" 2>&1; then
    ok "the [mariadb] unit tests of the DB source: $(grep -E '^(Passed|All tests)' "$T/unit.log" | tail -n 1)"
  else
    not_ok "the [mariadb] unit tests: $(tail -n 15 "$T/unit.log")"
  fi
else
  not_ok "no unit test binary at $UNIT_TESTS (set PETRICORE_UNIT_TESTS)"
fi

# ---- dry run, errors ----
snapshot >"$T/before"
init_db --web-host 127.0.0.1 --dry-run
rc=$?
snapshot >"$T/after"
if [ $rc -eq 0 ] && grep -q "^CREATE USER IF NOT EXISTS 'petricore'@'127.0.0.1' IDENTIFIED BY '<redacted>';$" "$T/out" &&
  grep -q '^CREATE OR REPLACE ALGORITHM = MERGE SQL SECURITY DEFINER VIEW `slurm_acct_db`.`user_job_view`' "$T/out" &&
  grep -q '^CREATE OR REPLACE ALGORITHM = MERGE SQL SECURITY DEFINER VIEW `slurm_acct_db`.`user_step_view` .* FROM `slurm_acct_db`.`itest_step_table` AS s WHERE s.`deleted` = 0;$' "$T/out" &&
  grep -q '^GRANT SELECT ON `slurm_acct_db`.`user_job_view`' "$T/out" &&
  grep -q '^GRANT SELECT ON `slurm_acct_db`.`user_step_view`' "$T/out" &&
  grep -qx 'CREATE DATABASE IF NOT EXISTS `petricore` CHARACTER SET utf8mb4;' "$T/out" &&
  grep -qx "GRANT $archive_privileges ON \`petricore\`.\\* TO 'petricore'@'127.0.0.1';" "$T/out" &&
  ! grep -qF "$password" "$T/out" && cmp -s "$T/before" "$T/after"; then
  ok "--dry-run prints the SQL with <redacted>, never the password, and changes nothing"
else
  not_ok "--dry-run: exit $rc: $(cat "$T/out" "$T/err")"
fi
init_db --web-host 127.0.0.1 --dry-run --drop
check "--dry-run --drop prints the three DROPs and keeps the archive database" \
  [ "$(grep -c '^DROP VIEW IF EXISTS `slurm_acct_db`.`user_\(job\|step\)_view`;$' "$T/out")/$(grep -c '^DROP USER IF EXISTS' "$T/out")/$(grep -c '^-- kept: the archive database `petricore`' "$T/out")/$(grep -c DATABASE "$T/out")" = 2/1/1/1 ]
init_db --web-host 127.0.0.1 --dry-run --archive-database none
check "--dry-run --archive-database none: no database, no grant beyond the views" \
  [ "$(grep -c '^GRANT' "$T/out")/$(grep -c 'DATABASE\|petricore`' "$T/out")" = 2/0 ]

"$PETRICORE" init-db --cluster itest --web-host 127.0.0.1 --password-file "$T/none" --db-socket "$MDB_SOCKET" \
  >"$T/out" 2>"$T/err"
rc=$?
one_line_error "missing password file" 2 "--password-file $T/none: No such file or directory" $rc
check "missing password file: nothing on stdout" [ ! -s "$T/out" ]
: >"$T/empty"
chmod 600 "$T/empty"
"$PETRICORE" init-db --cluster itest --web-host 127.0.0.1 --password-file "$T/empty" --db-socket "$MDB_SOCKET" \
  >"$T/out" 2>"$T/err"
one_line_error "empty password file" 2 "empty" $?
printf 'x\n' >"$T/open-password"
chmod 644 "$T/open-password"
"$PETRICORE" init-db --cluster itest --web-host 127.0.0.1 --password-file "$T/open-password" --db-socket "$MDB_SOCKET" \
  >"$T/out" 2>"$T/err"
one_line_error "world-readable password file" 2 "--password-file $T/open-password: readable or writable by others" $?
init_db --web-host 127.0.0.1 --admin-password-file "$T/none"
one_line_error "missing admin password file" 2 "--admin-password-file" $?
"$PETRICORE" init-db --cluster nosuch --web-host 127.0.0.1 --password-file "$T/password" --db-socket "$MDB_SOCKET" \
  >"$T/out" 2>"$T/err"
one_line_error "unknown cluster" 2 "no table slurm_acct_db.nosuch_job_table" $?
"$PETRICORE" init-db --cluster "itest\`; DROP DATABASE slurm_acct_db; --" --web-host 127.0.0.1 \
  --password-file "$T/password" --db-socket "$MDB_SOCKET" >"$T/out" 2>"$T/err"
one_line_error "an injected cluster name" 2 "invalid --cluster" $?
init_db --web-host "x'@'%"
one_line_error "an injected web host" 2 "invalid --web-host" $?
init_db --web-host 127.0.0.1 --archive-database slurm_acct_db
one_line_error "the accounting database as the archive's" 2 "invalid --archive-database 'slurm_acct_db'" $?
init_db --web-host 127.0.0.1 --archive-database mysql
one_line_error "a server database as the archive's" 2 "a database of the server itself" $?
"$PETRICORE" init-db --cluster itest --web-host 127.0.0.1 --password-file "$T/password" --db-socket "$T/no.sock" \
  >"$T/out" 2>"$T/err"
one_line_error "DB not there" 1 "Can't connect" $?
init_db --web-host 127.0.0.1 --admin-user petricore_nobody
one_line_error "admin login refused" 1 "Access denied" $?
mariadb_root -e "GRANT SELECT ON slurm_acct_db.* TO 'petricore'@'127.0.0.1'"
init_db --web-host 127.0.0.1
one_line_error "a grant beyond the views is reported" 1 \
  "holds more than SELECT on slurm_acct_db.user_job_view and slurm_acct_db.user_step_view" $?
mariadb_root -e "REVOKE SELECT ON slurm_acct_db.* FROM 'petricore'@'127.0.0.1'"
mariadb_root -e "GRANT SELECT ON slurm_acct_db.itest_step_table TO 'petricore'@'127.0.0.1'"
init_db --web-host 127.0.0.1
one_line_error "a grant on the step table is reported" 1 'GRANT SELECT ON `slurm_acct_db`.`itest_step_table`' $?
mariadb_root -e "REVOKE SELECT ON slurm_acct_db.itest_step_table FROM 'petricore'@'127.0.0.1'"

# This host's name: the server runs with --skip-name-resolve, so an account
# for a host name can never be the one a login matches.
init_db --web-host "$(hostname -s)"
one_line_error "web host by name on a server that skips name resolution" 1 "use an IP address" $?
init_db --web-host "$(hostname -s)" --drop

# ---- an archive database with '_' in its name: granted escaped ----
mariadb_root -e "CREATE DATABASE pcxarchive"
init_db --web-host 127.0.0.1 --user pcarchive --archive-database pc_archive
rc=$?
grants=$(mariadb_root -N --raw -e "SHOW GRANTS FOR 'pcarchive'@'127.0.0.1'")  # raw: '\' unescaped
if [ $rc -eq 0 ] && grep -qx 'created database pc_archive (utf8mb4) for the job archive' "$T/out" &&
  echo "$grants" | grep -qxF "GRANT $archive_privileges ON \`pc\\_archive\`.* TO \`pcarchive\`@\`127.0.0.1\`" &&
  grep -q '^verified as .pcarchive.@.127.0.0.1.: the archive database pc_archive takes' "$T/out"; then
  ok "--archive-database pc_archive: the grant names it escaped (pc\\_archive), verified by logging in"
else
  not_ok "--archive-database pc_archive: exit $rc: $(cat "$T/out" "$T/err"); grants: $grants"
fi
out=$(MYSQL_PWD=$password mariadb --no-defaults -h127.0.0.1 -P"$MDB_PORT" -upcarchive -N \
  -e 'CREATE TABLE pcxarchive.t (id INT)' 2>&1)
check "... which does not match pcxarchive: $out" grep -q "ERROR 1142" <<<"$out"
init_db --web-host 127.0.0.1 --user pcarchive --archive-database pc_archive --drop
check "... and --drop keeps pc_archive and says so" grep -qx 'kept database pc_archive and the job archive in it (DROP DATABASE `pc_archive` removes them)' "$T/out"
mariadb_root -e "DROP DATABASE pcxarchive; DROP DATABASE pc_archive"

# ---- a second web host without an archive database, then --drop ----
init_db --web-host localhost --archive-database none
rc=$?
privileges=$(mariadb_root -N -e "SELECT COUNT(*) FROM information_schema.SCHEMA_PRIVILEGES
  WHERE GRANTEE = \"'petricore'@'localhost'\"")
if [ $rc -eq 0 ] && grep -q "^created user 'petricore'@'localhost'" "$T/out" && ! grep -q 'created view' "$T/out" &&
  [ "$(grep -c "^granted SELECT on .* to 'petricore'@'localhost'$" "$T/out")" = 2 ] &&
  ! grep -q 'archive' "$T/out" && [ "$privileges" = 0 ] &&
  grep -q "^verified as 'petricore'@'localhost' over mariadb at $MDB_SOCKET" "$T/out"; then
  ok "a second web host (localhost) with --archive-database none gets its account, the views alone, verified over the socket"
else
  not_ok "init-db --web-host localhost --archive-database none: exit $rc, $privileges schema privileges: $(cat "$T/out" "$T/err")"
fi
init_db --web-host localhost --drop
rc=$?
if [ $rc -eq 0 ] && grep -q "^dropped user 'petricore'@'localhost'" "$T/out" &&
  grep -q "^kept view slurm_acct_db.user_job_view: 'petricore'@'127.0.0.1' still reads it" "$T/out" &&
  grep -q "^kept view slurm_acct_db.user_step_view: 'petricore'@'127.0.0.1' still reads it" "$T/out" &&
  ! grep -q '^dropped view' "$T/out"; then
  ok "--drop of one web host keeps the views the other still reads"
else
  not_ok "--drop localhost: exit $rc: $(cat "$T/out" "$T/err")"
fi
init_db --web-host 127.0.0.1 --drop
rc=$?
left=$(mariadb_root -N -e "SELECT COUNT(*) FROM mysql.user WHERE User = 'petricore';
  SELECT COUNT(*) FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'slurm_acct_db';
  SELECT COUNT(*) FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE LIKE \"'petricore'@%\"" | tr '\n' ' ')
if [ $rc -eq 0 ] && grep -qx 'dropped view slurm_acct_db.user_job_view' "$T/out" &&
  grep -qx 'dropped view slurm_acct_db.user_step_view' "$T/out" && grep -q '^dropped user' "$T/out" &&
  [ "$left" = "0 0 0 " ]; then
  ok "--drop removes the user with its grants, and the two views"
else
  not_ok "--drop: exit $rc, users, views and archive grants left: $left; $(cat "$T/out" "$T/err")"
fi
kept=$(mariadb_root -N -e "SELECT body FROM petricore.archived_probe" 2>&1)
if grep -qx 'kept database petricore and the job archive in it (DROP DATABASE `petricore` removes them)' "$T/out" &&
  [ "$kept" = "Zoë's job" ]; then
  ok "--drop keeps the archive database and its data, and says so"
else
  not_ok "--drop and the archive database: $kept; $(cat "$T/out")"
fi
init_db --web-host 127.0.0.1 --drop
check "a second --drop has nothing to drop" grep -q '^nothing to drop' "$T/out"
rows=$(mariadb_root -N -e 'SELECT COUNT(*) FROM slurm_acct_db.itest_job_table;
  SELECT COUNT(*) FROM slurm_acct_db.itest_step_table' | tr '\n' ' ')
check "slurmdbd's tables are untouched (11 jobs, 15 steps)" [ "$rows" = "11 15 " ]

# ---- the database goes away: a dependency failure, exit 1, one line naming it ----
mariadb_stop
report 304
one_line_error "DB down: report --accounting db" 1 "$MDB_PORT" $?

summary
[ $failed -eq 0 ]
