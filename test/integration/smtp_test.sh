#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# End-to-end test of mail delivery: `petricore report JOBID --send-mail`
# against a REAL SMTP server (aiosmtpd 1.4.3, Debian's python3-aiosmtpd, with
# its Mailbox handler: every accepted message becomes one file in a Maildir,
# with X-MailFrom and X-RcptTo headers added) and a REAL Prometheus holding
# the finished jobs of lib/synthetic_jobs.py (see prometheus_analysis_test.sh:
# job A, user alice, has warnings) plus two jobs whose series run into the
# future (still running).
#
# Checks: the stored message's envelope and headers, its text part (the mail
# text, last line WARNING=true) and its PDF part (pdfinfo reads it); that a
# leading '.' survives SMTP (libcurl dot-stuffs); the recipient
# <user>@[smtp] domain from a config file, the owner's LDAP mail (a real
# slapd, when installed) before it; --pdf FILE; the Slurm MailProg
# wrapper (packaging/petricore-mailprog) for an "Ended" subject (petricore
# sends) and a "Began" subject (the fallback mail program gets Slurm's
# arguments and body); usage errors, a running and an unknown job (exit 2);
# the monthly efficiency digests (`report --user U --send-mail` and
# `--every-user`) from an SQLite job archive that `petricore archive` fills:
# recipients, subject, text against `report --user --json`, the PDF;
# the SMTP server down (exit 1, one stderr line naming it, no password).
#
# Usage: smtp_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 with "SKIPPED: <why>" when
# prometheus, promtool, curl, python3, /usr/bin/python3 with aiosmtpd or
# pdfinfo are missing. KEEP=1 keeps the temp dir.
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$(dirname "$0")/../../scripts/lib/prometheus.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
MAILPROG=$(cd "$(dirname "$0")/../../packaging" && pwd)/petricore-mailprog

# shellcheck source=SCRIPTDIR/../../scripts/lib/slapd.sh
source "$(dirname "$0")/../../scripts/lib/slapd.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
why=$(prom_unavailable promtool python3 pdfinfo jq)
[ -z "$why" ] || skip "$why"
# Debian's python: a pyenv or venv python3 on PATH does not see its packages.
PY=/usr/bin/python3
[ -x "$PY" ] || skip "$PY is not installed"
"$PY" -c 'import aiosmtpd' 2>/dev/null || skip "aiosmtpd is not installed for $PY (python3-aiosmtpd)"
[ -x "$MAILPROG" ] || skip "$MAILPROG is missing"
"$PETRICORE" report --help 2>/dev/null | grep -q -- --send-mail || skip "$PETRICORE has no report --send-mail yet"

loopback_without_proxy

T=$(mktemp -d /tmp/petricore-smtptest.XXXXXX) || bail "create a temp dir"
SMTP_PID=
smtp_stop() {
  local pid=$SMTP_PID
  SMTP_PID=
  stop_pid "$pid" 5
}
cleanup() {
  smtp_stop
  slapd_stop
  prom_stop
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- Prometheus: jobs A and B ended 3 hours ago; C and D "run" until an
# hour from now (their series reach the present, so they are still running)
JOB_A=$(random_job_id)
JOB_B=$((JOB_A + 1))
JOB_C=$((JOB_A + 2))
JOB_D=$((JOB_A + 3))
END=$(prom_backfill_end)
LIVE_END=$((($(date +%s) + 3600) / 15 * 15))
prom_backfill_synthetic "$T/done.om" "$T/tsdb" "$JOB_A" "$JOB_B" $((END - 3600)) "$END" ||
  bail "backfill $T/done.om with promtool"
prom_backfill_synthetic "$T/live.om" "$T/tsdb" "$JOB_C" "$JOB_D" $((LIVE_END - 7200)) "$LIVE_END" ||
  bail "backfill $T/live.om with promtool"
prom_start "$T" "$T/tsdb" || bail "start prometheus over the backfilled TSDB"
ok "prometheus ready on $PROM_URL with finished jobs $JOB_A, $JOB_B and running jobs $JOB_C, $JOB_D"

# --- the SMTP sink
SMTP_PORT=$(free_ports 1)
SMTP_URL=smtp://127.0.0.1:$SMTP_PORT
MAILDIR=$T/maildir
smtp_start() {
  # -n: no setuid to nobody (which it tries as root)
  "$PY" -m aiosmtpd -n -l "127.0.0.1:$SMTP_PORT" -c aiosmtpd.handlers.Mailbox "$MAILDIR" \
    </dev/null >"$T/aiosmtpd.log" 2>&1 &
  SMTP_PID=$!
  local _
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$SMTP_PORT") 2>/dev/null && return 0
    kill -0 "$SMTP_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -n 5 "$T/aiosmtpd.log" >&2
  return 1
}
smtp_start || bail "start aiosmtpd on 127.0.0.1:$SMTP_PORT"
ok "aiosmtpd ready on $SMTP_URL (pid $SMTP_PID)"

stored() { find "$MAILDIR/new" -type f 2>/dev/null | wc -l; }
# newest_message: the path of the most recently stored message.
newest_message() { find "$MAILDIR/new" -type f -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -n 1 | cut -d' ' -f2-; }

# parse_message FILE OUTDIR: with Python's email module, writes OUTDIR/
# rcpt, to, subject, text (the decoded text/plain part), pdf (the decoded
# application/pdf part), pdf_name.
parse_message() {
  mkdir -p "$2"
  "$PY" - "$1" "$2" <<'EOF'
import email, email.policy, sys, pathlib
path, out = sys.argv[1], pathlib.Path(sys.argv[2])
msg = email.message_from_bytes(pathlib.Path(path).read_bytes(), policy=email.policy.default)
(out / "rcpt").write_text(str(msg.get("X-RcptTo", "")))
(out / "to").write_text(str(msg.get("To", "")))
(out / "subject").write_text(str(msg.get("Subject", "")))
(out / "date").write_text(str(msg.get("Date", "")))
(out / "defects").write_text("".join(repr(d) + "\n" for part in msg.walk() for d in part.defects))
for part in msg.walk():
    if part.get_content_type() == "text/plain" and not (out / "text").exists():
        (out / "text").write_text(part.get_content().replace("\r\n", "\n"))
    elif part.get_content_type() == "application/pdf":
        (out / "pdf").write_bytes(part.get_payload(decode=True))
        (out / "pdf_name").write_text(part.get_filename() or "")
EOF
}

report() {
  "$PETRICORE" --log-level warning "$@" --prometheus "$PROM_URL" --accounting prometheus
}

# --- 1. --send-mail --to
before=$(stored)
report report "$JOB_A" --send-mail --to x@example.org --smtp "$SMTP_URL" >"$T/send.out" 2>"$T/send.err"
rc=$?
check "report $JOB_A --send-mail --to x@example.org exits 0 (exit $rc: $(head -c 300 "$T/send.err"))" test "$rc" = 0
check "it says where it sent the mail ($(cat "$T/send.out"))" \
  grep -qF "job $JOB_A to x@example.org via $SMTP_URL" "$T/send.out"
check "the server stored one message" test "$(stored)" = $((before + 1))
parse_message "$(newest_message)" "$T/m1"
check "envelope recipient X-RcptTo is x@example.org (got $(cat "$T/m1/rcpt"))" test "$(cat "$T/m1/rcpt")" = x@example.org
check "To is x@example.org (got $(cat "$T/m1/to"))" test "$(cat "$T/m1/to")" = x@example.org
check "the subject names job $JOB_A (got '$(cat "$T/m1/subject")')" grep -q "^Job $JOB_A .*COMPLETED: [0-9]* warning" "$T/m1/subject"
check "Python's email parser finds no defects ($(head -c 200 "$T/m1/defects"))" test ! -s "$T/m1/defects"
report report "$JOB_A" --mail >"$T/mail.txt" 2>"$T/mail.err"
last=$(tail -n 1 "$T/m1/text" 2>/dev/null)
check "the text part's last line is WARNING=true (got '$last')" test "$last" = WARNING=true
check "the text part is the text of report --mail" cmp -s "$T/m1/text" "$T/mail.txt"
check "the attachment is named job-$JOB_A.pdf (got '$(cat "$T/m1/pdf_name" 2>/dev/null)')" \
  test "$(cat "$T/m1/pdf_name" 2>/dev/null)" = "job-$JOB_A.pdf"
if [ -s "$T/m1/pdf" ] && pdfinfo "$T/m1/pdf" >"$T/m1/pdfinfo" 2>&1; then
  ok "pdfinfo reads the attached PDF ($(grep -m1 '^Pages:' "$T/m1/pdfinfo" | tr -s ' '))"
else
  not_ok "pdfinfo reads the attached PDF ($(head -c 200 "$T/m1/pdfinfo" 2>/dev/null))"
fi

# --- 2. dot-stuffing: a line that is a lone '.' ends the SMTP data unless
# the client doubles it. petricore leaves that to libcurl; the curl tool
# uses the same libcurl.
printf 'From: a@example.org\r\nTo: b@example.org\r\nSubject: dots\r\n\r\nfirst\r\n.\r\n.hidden\r\nlast\r\n' >"$T/dots.eml"
if curl -sS --max-time 10 --url "$SMTP_URL" --mail-from a@example.org --mail-rcpt b@example.org \
  --upload-file "$T/dots.eml" 2>"$T/dots.err"; then
  body=$(sed -n '/^\r\{0,1\}$/,$p' "$(newest_message)" | tr -d '\r' | tail -n 4 | tr '\n' '|')
  check "libcurl dot-stuffs: lines '.' and '.hidden' arrive as sent (got '$body')" test "$body" = 'first|.|.hidden|last|'
else
  not_ok "curl sends a message with leading dots ($(head -c 200 "$T/dots.err"))"
fi

# --- 3. recipient <user>@domain and the PDF link from the config file
cat >"$T/petricore.toml" <<EOF
[prometheus]
url = "$PROM_URL"

[accounting]
source = "prometheus"

[smtp]
url = "$SMTP_URL"
domain = "example.net"
from = "hpc-reports@example.org"
public_url = "https://petricore.example.org/"
EOF
before=$(stored)
"$PETRICORE" --config "$T/petricore.toml" report "$JOB_A" --send-mail >"$T/dom.out" 2>"$T/dom.err"
rc=$?
check "report --send-mail with [smtp] domain and no --to exits 0 (exit $rc: $(head -c 300 "$T/dom.err"))" test "$rc" = 0
if [ "$(stored)" = $((before + 1)) ]; then
  f=$(newest_message)
  parse_message "$f" "$T/m2"
  check "the recipient is alice@example.net (X-RcptTo $(cat "$T/m2/rcpt"), To $(cat "$T/m2/to"))" \
    test "$(cat "$T/m2/rcpt")" = alice@example.net -a "$(cat "$T/m2/to")" = alice@example.net
  check "the sender is [smtp] from" grep -q '^X-MailFrom: hpc-reports@example.org' "$f"
  check "the text links the PDF under [smtp] public_url" \
    grep -qF "https://petricore.example.org/pdf/$JOB_A" "$T/m2/text"
else
  not_ok "a message to alice@example.net was stored"
fi

# The owner's mail in LDAP wins over [smtp] domain (a real slapd, when
# installed; anonymous reads).
if [ -z "$(slapd_unavailable)" ]; then
  if slapd_start "$T/slapd" "$(free_ports 1)" && slapd_load_base &&
    slapd_add_user alice 1001 alice@ldap.example.org; then
    before=$(stored)
    "$PETRICORE" --config "$T/petricore.toml" report "$JOB_A" --send-mail --ldap-uri "$SLAPD_URI" \
      --ldap-base "$SLAPD_SUFFIX" >"$T/ldap.out" 2>"$T/ldap.err"
    rc=$?
    if [ "$rc" = 0 ] && [ "$(stored)" = $((before + 1)) ]; then
      parse_message "$(newest_message)" "$T/m-ldap"
      check "with [ldap], the recipient is alice's LDAP mail (got $(cat "$T/m-ldap/rcpt"))" \
        test "$(cat "$T/m-ldap/rcpt")" = alice@ldap.example.org
    else
      not_ok "report --send-mail with --ldap-uri exits 0 and sends (exit $rc: $(head -c 300 "$T/ldap.err"))"
    fi
  else
    not_ok "start slapd and load alice (see $T/slapd)"
  fi
  slapd_stop
else
  echo "# skipped: the recipient from LDAP: $(slapd_unavailable)"
fi

# No domain, no LDAP, no --to: nobody to send to.
printf '[smtp]\nurl = "%s"\n' "$SMTP_URL" >"$T/nodomain.toml"
"$PETRICORE" --config "$T/nodomain.toml" report "$JOB_A" --send-mail --prometheus "$PROM_URL" \
  --accounting prometheus >"$T/norcpt.out" 2>"$T/norcpt.err"
rc=$?
check "no recipient: exit 2 and one line naming user alice (exit $rc: $(head -n 1 "$T/norcpt.err"))" \
  test "$rc" = 2 -a "$(wc -l <"$T/norcpt.err")" = 1 -a -n "$(grep 'no recipient for user alice' "$T/norcpt.err")"

# --- 4. --pdf FILE
report report "$JOB_A" --pdf "$T/report.pdf" >"$T/pdf.out" 2>"$T/pdf.err"
rc=$?
if [ "$rc" = 0 ] && pdfinfo "$T/report.pdf" >/dev/null 2>&1; then
  ok "report --pdf FILE writes a PDF that pdfinfo reads"
else
  not_ok "report --pdf FILE writes a PDF that pdfinfo reads (exit $rc: $(head -c 300 "$T/pdf.err"))"
fi
check "no temporary file is left next to it" test "$(find "$T" -maxdepth 1 -name 'report.pdf.*' | wc -l)" = 0
report report "$JOB_A" --pdf - >"$T/stdout.pdf" 2>/dev/null
pdf_ok() { pdfinfo "$1" >/dev/null 2>&1; }
check "report --pdf - writes the PDF to stdout" pdf_ok "$T/stdout.pdf"

# --- 5. the Slurm MailProg wrapper. The recording script stands in for
# /usr/bin/mail (the wrapper's default fallback): it keeps its arguments and
# the body it was given.
cat >"$T/fake-mail" <<EOF
#!/bin/bash
printf '%s\n' "\$@" >"$T/fallback.args"
cat >"$T/fallback.body"
EOF
chmod +x "$T/fake-mail"
mailprog() {
  rm -f "$T/fallback.args" "$T/fallback.body"
  env -u SLURM_JOB_MAIL_TYPE PETRICORE_BIN="$PETRICORE" PETRICORE_CONFIG="$T/petricore.toml" \
    PETRICORE_FALLBACK_MAIL="$T/fake-mail" "$MAILPROG" "$@"
}
before=$(stored)
echo "Slurm's own body" | mailprog -s "Slurm Job_id=$JOB_A Name=cfd-run Ended, Run time 01:00:00, COMPLETED, ExitCode 0" \
  alice >"$T/mp1.out" 2>"$T/mp1.err"
rc=$?
check "MailProg with an 'Ended' subject exits 0 (exit $rc: $(head -c 300 "$T/mp1.err"))" test "$rc" = 0
if [ "$(stored)" = $((before + 1)) ]; then
  parse_message "$(newest_message)" "$T/m3"
  check "MailProg 'Ended': petricore mailed the report to alice@example.net (got $(cat "$T/m3/rcpt"))" \
    test "$(cat "$T/m3/rcpt")" = alice@example.net -a -s "$T/m3/pdf"
else
  not_ok "MailProg 'Ended': petricore mailed the report ($(head -c 300 "$T/mp1.err"))"
fi
check "MailProg 'Ended': the fallback mail program was not called" test ! -e "$T/fallback.args"

before=$(stored)
subject="Slurm Job_id=$JOB_A Name=cfd-run Began, Queued time 00:00:01"
printf 'line 1\nline 2\n' | mailprog -s "$subject" alice >"$T/mp2.out" 2>"$T/mp2.err"
rc=$?
check "MailProg with a 'Began' subject exits 0 (exit $rc)" test "$rc" = 0
check "MailProg 'Began': the fallback got Slurm's arguments" \
  test "$(cat "$T/fallback.args" 2>/dev/null)" = "$(printf '%s\n' -s "$subject" alice)"
check "MailProg 'Began': the fallback got Slurm's body" test "$(cat "$T/fallback.body" 2>/dev/null)" = "$(printf 'line 1\nline 2')"
check "MailProg 'Began': petricore sent nothing" test "$(stored)" = "$before"

subject="Slurm Job_id=$((JOB_A + 99)) Name=gone Failed, Run time 00:00:05, FAILED, ExitCode 1"
echo "body" | mailprog -s "$subject" bob@example.org >"$T/mp3.out" 2>"$T/mp3.err"
rc=$?
check "MailProg 'Failed' for a job petricore does not know: the fallback still delivers (exit $rc)" \
  test "$rc" = 0 -a "$(sed -n 2p "$T/fallback.args" 2>/dev/null)" = "$subject"

# --- 6. usage errors, a running and an unknown job: exit 2, one line
expect_exit() {
  local what=$1 code=$2
  shift 2
  "$@" >"$T/e.out" 2>"$T/e.err"
  local rc=$?
  check "$what: exit $code and one line (exit $rc: $(head -n 1 "$T/e.err"))" \
    test "$rc" = "$code" -a "$(wc -l <"$T/e.err")" = 1
}
expect_exit "--json with --send-mail" 2 report report "$JOB_A" --json --send-mail --to x@example.org --smtp "$SMTP_URL"
expect_exit "--pdf with --mail" 2 report report "$JOB_A" --mail --pdf "$T/x.pdf"
expect_exit "--to without --send-mail" 2 report report "$JOB_A" --to x@example.org
before=$(stored)
expect_exit "running job $JOB_C --send-mail" 2 report report "$JOB_C" --send-mail --to x@example.org --smtp "$SMTP_URL"
check "the running-job message says it is still running" grep -q "still running" "$T/e.err"
expect_exit "unknown job --send-mail" 2 report report "$((JOB_A + 99))" --send-mail --to x@example.org --smtp "$SMTP_URL"
check "nothing was sent for the running or the unknown job" test "$(stored)" = "$before"

# --- 7. the efficiency digests, from a job archive `petricore archive` fills
cp "$T/petricore.toml" "$T/digest.toml"
cat >>"$T/digest.toml" <<EOF

[archive]
store = "sqlite"
path = "$T/archive.db"
cluster = "smtp-test"
EOF
digest_since=$(date -u -d "@$((END - 7200))" +%Y-%m-%dT%H:%M:%S)
"$PETRICORE" --config "$T/digest.toml" archive --quiet --since "$digest_since" \
  >"$T/archive.out" 2>"$T/archive.err"
check "petricore archive stores jobs $JOB_A and $JOB_B ($(cat "$T/archive.out") $(head -c 200 "$T/archive.err"))" \
  grep -q "^2 jobs archived" "$T/archive.out"
digest() { "$PETRICORE" --log-level warning --config "$T/digest.toml" report --since "$digest_since" "$@"; }
before=$(stored)
digest --user alice --send-mail >"$T/digest.out" 2>"$T/digest.err"
rc=$?
check "report --user alice --send-mail exits 0 (exit $rc: $(head -c 300 "$T/digest.err"))" test "$rc" = 0
check "it says it sent alice's digest of 1 job ($(cat "$T/digest.out"))" \
  grep -qF "sent the efficiency digest of user alice (1 jobs) to alice@example.net via $SMTP_URL" "$T/digest.out"
if [ "$(stored)" = $((before + 1)) ]; then
  parse_message "$(newest_message)" "$T/d1"
  check "the digest goes to alice@example.net (got $(cat "$T/d1/rcpt"))" test "$(cat "$T/d1/rcpt")" = alice@example.net
  check "its subject is the efficiency digest's (got '$(cat "$T/d1/subject")')" \
    grep -q "^Your Slurm jobs' efficiency, " "$T/d1/subject"
  check "Python's email parser finds no defects in it ($(head -c 200 "$T/d1/defects"))" test ! -s "$T/d1/defects"
  # The figures are those of `report --user alice --json`: her one job A.
  digest --user alice --json >"$T/alice.json" 2>/dev/null
  used=$(jq -r '.total.core_hours.used' "$T/alice.json" 2>/dev/null)
  check "the text greets alice" grep -q "^Hello alice," "$T/d1/text"
  check "the text links job $JOB_A's page" grep -qF "https://petricore.example.org/jobs/$JOB_A" "$T/d1/text"
  check "the text gives the core-hours used of report --user alice --json ($used)" \
    grep -qF " $used " "$T/d1/text"
  check "the text names none of bob's jobs" test -z "$(grep -F "$JOB_B" "$T/d1/text")"
  check "the attachment is named efficiency-alice.pdf (got '$(cat "$T/d1/pdf_name" 2>/dev/null)')" \
    test "$(cat "$T/d1/pdf_name" 2>/dev/null)" = efficiency-alice.pdf
  if [ -s "$T/d1/pdf" ] && pdfinfo "$T/d1/pdf" >"$T/d1/pdfinfo" 2>&1; then
    ok "pdfinfo reads the digest's PDF ($(grep -m1 '^Pages:' "$T/d1/pdfinfo" | tr -s ' '))"
  else
    not_ok "pdfinfo reads the digest's PDF ($(head -c 200 "$T/d1/pdfinfo" 2>/dev/null))"
  fi
else
  not_ok "alice's digest was stored"
fi
before=$(stored)
digest --every-user --send-mail >"$T/every.out" 2>"$T/every.err"
rc=$?
check "report --every-user --send-mail: exit 0, 2 digests sent (exit $rc: $(tail -n 1 "$T/every.out") $(head -c 200 "$T/every.err"))" \
  test "$rc" = 0 -a "$(tail -n 1 "$T/every.out")" = "2 digests sent, 0 failed"
rcpts=$(find "$MAILDIR/new" -type f -newer "$T/digest.out" -exec grep -h '^X-RcptTo:' {} + 2>/dev/null | tr -d '\r' | sort | tr '\n' ' ')
check "one digest each to alice and bob (got $rcpts)" \
  test "$(stored)" = $((before + 2)) -a "$rcpts" = "X-RcptTo: alice@example.net X-RcptTo: bob@example.net "
expect_exit "--every-user without --send-mail" 2 digest --every-user
sed "s|$T/archive.db|$T/no-archive/archive.db|" "$T/digest.toml" >"$T/noarchive.toml"
"$PETRICORE" --config "$T/noarchive.toml" report --user alice --send-mail >"$T/e.out" 2>"$T/e.err"
rc=$?
check "a digest without an archive: exit 1, one line, no archive created (exit $rc: $(head -n 1 "$T/e.err"))" \
  test "$rc" = 1 -a "$(wc -l <"$T/e.err")" = 1 -a ! -e "$T/no-archive"

# --- 8. the SMTP server down
smtp_stop
DOWN="smtp://127.0.0.1:$SMTP_PORT"
report report "$JOB_A" --send-mail --to x@example.org --smtp "smtp://mailer:s3cret@127.0.0.1:$SMTP_PORT" \
  >"$T/down.out" 2>"$T/down.err"
rc=$?
check "SMTP server down: exit 1 and exactly one stderr line (exit $rc: $(head -n 1 "$T/down.err"))" \
  test "$rc" = 1 -a "$(wc -l <"$T/down.err")" = 1
check "the message names the server 127.0.0.1:$SMTP_PORT" grep -qF "127.0.0.1:$SMTP_PORT" "$T/down.err"
check "the message does not show the password" test -z "$(grep -F s3cret "$T/down.err")"
report report "$JOB_A" --send-mail --to x@example.org --smtp "$DOWN" >/dev/null 2>"$T/down2.err"
check "without credentials it names $DOWN" grep -qF "$DOWN" "$T/down2.err"

summary
[ "$failed" = 0 ]
