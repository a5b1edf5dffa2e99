#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# Secrets never show: a recognisable secret is put in every place petricore
# takes one (the accounting DB's, the archive DB's, the LDAP bind's and the
# SMTP login's password files, init-db's two password files, and the
# user:password@ of the Prometheus, Pushgateway and SMTP URLs), every failure
# that involves them is provoked against real closed loopback ports (no
# mocks: nothing listens there, so each connection is refused), at
# --log-level debug, and the secret must be in no stdout, stderr, log line or
# HTTP answer. Each failure is also checked to have happened (the message
# names the server it failed on), so that no check passes by not running:
#
#   report, accounting DB down         report JOB --json (DB view source)
#   report, Prometheus down            report JOB --json --accounting prometheus
#   report, LDAP down                  report --user U --send-mail (the
#                                      user's mail address from LDAP)
#   report, SMTP down                  report --user U --send-mail --to ADDR
#   init-db, MariaDB down              init-db --db-host/--db-port
#   collect, Pushgateway down          collect --push URL, then SIGTERM (the
#                                      PUTs and the DELETE fail)
#   serve, every source down           /api/v1/jobs/J/usage (DB), /api/v1/users/U
#                                      (LDAP), /healthz (archive DB), the log
#   config file errors                 a misspelt password key, a secret as
#                                      the value of a number, a line that is
#                                      not key = value, an unterminated URL
#                                      with credentials, credentials in the
#                                      LDAP URI (refused by libldap)
#
# Usage: secrets_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 with "SKIPPED: <why>" without
# python3 or curl. KEEP=1 keeps the temp dir.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$here/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
# shellcheck source=SCRIPTDIR/../../scripts/lib/process.sh
source "$here/../../scripts/lib/process.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$here/../../scripts/lib/tap.sh"
fixtures=${PETRICORE_FIXTURES:-$here/../fixtures}
for tool in python3 curl; do command -v "$tool" >/dev/null || skip "$tool is not installed"; done
loopback_without_proxy

T=$(mktemp -d /tmp/petricore-secrets.XXXXXX) || bail "create a temp dir"
SERVE_PID=
COLLECT_PID=
cleanup() {
  stop_pid "$SERVE_PID" 5
  stop_pid "$COLLECT_PID" 5
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Letters, digits and '-' only: it goes into URLs as it is.
SECRET=pcSecret-$RANDOM$RANDOM-xyzzy
# Ports held only while chosen: nothing listens on them afterwards.
read -r P_PROM P_DB P_LDAP P_SMTP P_PUSH P_ARCHIVE P_SERVE <<<"$(free_ports 7)"
for f in db ldap smtp archive admin; do
  printf '%s\n' "$SECRET" >"$T/$f.password"
  chmod 600 "$T/$f.password"
done

cat >"$T/petricore.toml" <<EOF
[collect]
push = "http://pusher:$SECRET@127.0.0.1:$P_PUSH"

[prometheus]
url = "http://reader:$SECRET@127.0.0.1:$P_PROM"
timeout = 2

[accounting]
source = "db"

[accounting.db]
host = "127.0.0.1"
port = $P_DB
password_file = "$T/db.password"
timeout = 2

[ldap]
uri = "ldap://127.0.0.1:$P_LDAP"
base = "dc=example,dc=org"
bind_dn = "cn=reader,dc=example,dc=org"
password_file = "$T/ldap.password"
timeout = 2

[smtp]
url = "smtp://mailer:$SECRET@127.0.0.1:$P_SMTP"
user = "mailer"
password_file = "$T/smtp.password"
domain = "example.org"
timeout = 2

[archive]
store = "sqlite"
path = "$T/archive.db"
EOF

# no_secret NAME FILE...: ok when no FILE holds the secret.
no_secret() {
  local name=$1
  shift
  if grep -qF -- "$SECRET" "$@"; then
    not_ok "$name: the secret shows in $(grep -lF -- "$SECRET" "$@" | tr '\n' ' ')"
  else
    ok "$name: the secret is in none of its output"
  fi
}
# failed_on NAME TEXT FILE: ok when FILE names TEXT (the failure happened
# where it was provoked).
failed_on() {
  if grep -qF -- "$2" "$3"; then ok "$1: the failure names $2"; else not_ok "$1: no '$2' in: $(head -c 300 "$3")"; fi
}
pc() { "$PETRICORE" --config "$T/petricore.toml" --log-level debug "$@"; }

# --- report
pc report 4242 --json >"$T/db.out" 2>"$T/db.err"
rc=$?
check "report with the accounting DB down: exit 1 (exit $rc)" test "$rc" = 1
failed_on "report, DB down" "127.0.0.1:$P_DB" "$T/db.err"
no_secret "report, DB down" "$T/db.out" "$T/db.err"

pc report 4242 --json --accounting prometheus >"$T/prom.out" 2>"$T/prom.err"
rc=$?
check "report with Prometheus down: exit 1 (exit $rc)" test "$rc" = 1
failed_on "report, Prometheus down" "***@127.0.0.1:$P_PROM" "$T/prom.err"
no_secret "report, Prometheus down" "$T/prom.out" "$T/prom.err"

# The digests read an archive that exists (a report never creates one): an
# empty file is an empty SQLite database, whose schema they then create.
: >"$T/archive.db"
pc report --user alice --send-mail >"$T/ldap.out" 2>"$T/ldap.err"
rc=$?
check "digest with LDAP down: exit 1 (exit $rc)" test "$rc" = 1
failed_on "digest, LDAP down" "ldap://127.0.0.1:$P_LDAP" "$T/ldap.err"
no_secret "digest, LDAP down" "$T/ldap.out" "$T/ldap.err"

pc report --user alice --send-mail --to alice@example.org >"$T/smtp.out" 2>"$T/smtp.err"
rc=$?
check "digest with the SMTP server down: exit 1 (exit $rc)" test "$rc" = 1
failed_on "digest, SMTP down" "***@127.0.0.1:$P_SMTP" "$T/smtp.err"
no_secret "digest, SMTP down" "$T/smtp.out" "$T/smtp.err"

# --- init-db
pc init-db --cluster itest --web-host 127.0.0.1 --password-file "$T/db.password" \
  --admin-password-file "$T/admin.password" --db-host 127.0.0.1 --db-port "$P_DB" >"$T/initdb.out" 2>"$T/initdb.err"
rc=$?
check "init-db with MariaDB down: exit 1 (exit $rc)" test "$rc" = 1
failed_on "init-db, MariaDB down" "127.0.0.1" "$T/initdb.err"
no_secret "init-db, MariaDB down" "$T/initdb.out" "$T/initdb.err"

# --- collect: a pass or two pushing to nobody, then SIGTERM (the DELETE)
if [ -d "$fixtures/slurm-v1/cgroup" ]; then
  # Not through pc: a function sent to the background is a subshell, and $!
  # would be its pid, not the collector's (which then outlived the suite).
  "$PETRICORE" --config "$T/petricore.toml" --log-level debug collect --interval 1 \
    --cgroup-root "$fixtures/slurm-v1/cgroup" --proc-root "$fixtures/slurm-v1/proc" \
    --push-timeout 1 >"$T/collect.out" 2>"$T/collect.err" &
  COLLECT_PID=$!
  sleep 2.5
  stop_pid "$COLLECT_PID" 5
  COLLECT_PID=
  failed_on "collect, Pushgateway down" "***@127.0.0.1:$P_PUSH" "$T/collect.err"
  no_secret "collect, Pushgateway down" "$T/collect.out" "$T/collect.err"
else
  echo "# no fixture tree at $fixtures/slurm-v1: the Pushgateway case did not run"
fi

# --- serve, with the archive in MariaDB too (its archiver fails at once)
cat "$T/petricore.toml" - >"$T/serve.toml" <<EOF

[archive.db]
host = "127.0.0.1"
port = $P_ARCHIVE
password_file = "$T/archive.password"
timeout = 2
EOF
sed -i 's/^store = "sqlite"$/store = "mariadb"/' "$T/serve.toml"
"$PETRICORE" --config "$T/serve.toml" --log-level debug serve --listen "127.0.0.1:$P_SERVE" --auth none \
  </dev/null >"$T/serve.log" 2>&1 &
SERVE_PID=$!
if wait_ready serve "$SERVE_PID" "http://127.0.0.1:$P_SERVE/healthz" "$T/serve.log" 10; then
  get() { curl -s --max-time 20 -o "$T/$1.body" -w '%{http_code}' "http://127.0.0.1:$P_SERVE$2"; }
  code=$(get usage /api/v1/jobs/4242/usage)
  check "serve, DB down: /api/v1/jobs/4242/usage is 502 (got $code)" test "$code" = 502
  failed_on "serve, DB down" "127.0.0.1:$P_DB" "$T/usage.body"
  code=$(get user /api/v1/users/alice)
  check "serve, LDAP down: /api/v1/users/alice is 502 (got $code)" test "$code" = 502
  failed_on "serve, LDAP down" "ldap://127.0.0.1:$P_LDAP" "$T/user.body"
  # The archiver's first pass fails on the archive DB; /healthz says why.
  for _ in $(seq 1 50); do
    get healthz /healthz >/dev/null
    grep -q degraded "$T/healthz.body" && break
    sleep 0.2
  done
  failed_on "serve, archive DB down: /healthz" "degraded" "$T/healthz.body"
  stop_pid "$SERVE_PID" 10
  SERVE_PID=
  no_secret "serve, every source down" "$T/usage.body" "$T/user.body" "$T/healthz.body" "$T/serve.log"
else
  not_ok "serve did not start: $(tail -n 3 "$T/serve.log")"
fi

# --- configuration files with the secret in the wrong place
# config_error NAME SECTION LINE EXIT REPORT_ARGS...: the config with LINE
# added under SECTION (replacing the section's line with the same key) makes
# `report REPORT_ARGS` exit with EXIT, and the secret shows nowhere.
config_error() {
  local name=$1 section=$2 line=$3 want=$4
  shift 4
  python3 - "$T/petricore.toml" "$section" "$line" >"$T/bad.toml" <<'EOF'
import sys
path, section, line = sys.argv[1:4]
out = []
for l in open(path).read().splitlines():
    if out and out[-1] == line and " = " in l and l.split(" = ")[0] == line.split(" = ")[0]:
        continue
    out.append(l)
    if l == section:
        out.append(line)
print("\n".join(out))
EOF
  "$PETRICORE" --config "$T/bad.toml" --log-level debug report "$@" >"$T/bad.out" 2>"$T/bad.err"
  rc=$?
  check "config with $name: exit $want (exit $rc: $(head -n 1 "$T/bad.err"))" test "$rc" = "$want"
  no_secret "config with $name" "$T/bad.out" "$T/bad.err"
}
config_error "a password key that does not exist" "[accounting.db]" "password = \"$SECRET\"" 2 4242 --json
config_error "the secret as the value of a number" "[accounting.db]" "timeout = \"$SECRET\"" 2 4242 --json
config_error "a line that is not key = value" "[smtp]" "$SECRET" 2 4242 --json
# CLI11's TOML reader takes an unterminated string as it stands, quote
# included: the URL is then refused (it does not start with http://) by a
# message that shows it.
config_error "an unterminated Prometheus URL with credentials" "[prometheus]" \
  "url = \"http://reader:$SECRET@127.0.0.1:$P_PROM" 2 4242 --json --accounting prometheus
failed_on "the refused Prometheus URL" "***@127.0.0.1:$P_PROM" "$T/bad.err"
# LDAP has a bind DN and a password file; credentials in its URI are a
# mistake libldap refuses, by a message that shows the URI.
config_error "credentials in the LDAP URI" "[ldap]" "uri = \"ldap://reader:$SECRET@127.0.0.1:$P_LDAP\"" 2 \
  --user alice --send-mail
failed_on "the refused LDAP URI" "ldap://***@127.0.0.1:$P_LDAP" "$T/bad.err"

summary
[ "$failed" = 0 ]
