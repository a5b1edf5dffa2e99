#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# The LDAP directory (src/sources/ldap_directory.cpp) against a REAL OpenLDAP
# slapd on a free loopback port (scripts/lib/slapd.sh): mdb backend,
# posixAccount people and posixGroup groups:
#
#   alice  uidNumber 1001, mail, in the groups physics and rrg-alice
#   bob    uidNumber 1002, no mail, in physics
#   zoë    a UTF-8 name, with mail, in no group
#   we*ird(1)\x  a name that must be escaped in a filter, in the group odd
#   cn=reader    a bind DN with a password; the ACL shows `mail` to bound
#                users only, so a bind that silently fell back to anonymous
#                would show
#
# Checks (through a small probe built here against the build's
# libpetricore_core.a, until `petricore serve`'s /api/v1/users/<u> exists;
# the serve test reuses lib/slapd.sh): alice's mail, uid and both groups; bob
# has no mail; unknown users and injection attempts are not found; UTF-8 and
# escaped names are found; anonymous and bound lookups; a wrong password and a
# missing password file give clear errors; several URIs fail over; lookups
# from several threads agree; a stopped slapd gives Unavailable within the
# timeout, a restarted one is reconnected to, a session reset by the peer is
# replaced without SIGPIPE, and a frozen one (SIGSTOP) times out within the
# timeout.
#
# Usage: slapd_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 (SKIPPED: <why>) without slapd.
# Needs the Debian packages slapd and ldap-utils (installed beforehand), g++.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/slapd.sh
source "$HERE/../../scripts/lib/slapd.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$(dirname "$0")/../../scripts/lib/tap.sh"
why=$(slapd_unavailable)
[ -z "$why" ] || skip "$why"


T=$(mktemp -d /tmp/petricore-slapd-test.XXXXXX) || bail "create a temp dir"
PROBE_PID=''
cleanup() {
  if [ -n "$PROBE_PID" ]; then
    kill -TERM "$PROBE_PID" 2>/dev/null
    wait "$PROBE_PID" 2>/dev/null
  fi
  slapd_stop
  [ "$failed" -gt 0 ] && tail_logs 10 "$T/slapd/slapd.log"
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The directory probe is built by meson (test/integration/directory_probe.cpp)
# with the same flags as petricore, sanitizers included.
PROBE=${DIRECTORY_PROBE:-$(dirname "$PETRICORE")/../test/directory_probe}
[ -x "$PROBE" ] || bail "the directory probe $PROBE is built"

# --- the directory
SLAPD_SUFFIX=dc=example,dc=org
BASE=$SLAPD_SUFFIX
READER_DN=cn=reader,$BASE
READER_PASSWORD='reader pass: 7*(x)'
SLAPD_ACCESS="access to attrs=userPassword by anonymous auth by * none
access to attrs=mail by users read by * none
access to * by * read"
PORT=$(free_ports 1)
slapd_start "$T/slapd" "$PORT" || bail "start slapd on 127.0.0.1:$PORT (see above)"
URI=$SLAPD_URI
echo "# slapd pid $SLAPD_PID on $URI"
WEIRD='we*ird(1)\x'
{
  slapd_load_base &&
    slapd_load <<EOF &&
dn: $READER_DN
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: $READER_PASSWORD
EOF
    slapd_add_user alice 1001 alice@example.org &&
    slapd_add_user bob 1002 &&
    slapd_add_user 'zoë' 1003 zoe@example.org &&
    slapd_add_user "$WEIRD" 1004 weird@example.org &&
    slapd_add_group physics 2001 alice bob &&
    slapd_add_group rrg-alice 2002 alice &&
    slapd_add_group odd 2003 "$WEIRD" &&
    slapd_add_group empty 2004
} 2>"$T/load.log" || { sed 's/^/#   /' "$T/load.log"; bail "load people and groups"; }

printf '%s\n' "$READER_PASSWORD" >"$T/reader.password"
printf 'wrong\n' >"$T/wrong.password"
chmod 600 "$T"/*.password
ANON=(--uri "$URI" --base "$BASE" --timeout 2)
BOUND=(--uri "$URI" --base "$BASE" --timeout 2 --bind-dn "$READER_DN" --password-file "$T/reader.password")
WRONG=(--uri "$URI" --base "$BASE" --timeout 2 --bind-dn "$READER_DN" --password-file "$T/wrong.password")
MISSING=(--uri "$URI" --base "$BASE" --timeout 2 --bind-dn "$READER_DN" --password-file "$T/missing.password")

# lookup ARGS... USER: the result of one lookup, without the timing.
lookup() { "$PROBE" "$@" | sed 's/ ms=[0-9]*$//'; }
expect() {  # expect DESCRIPTION EXPECTED ACTUAL
  if [ "$3" = "$2" ]; then ok "$1"; else not_ok "$1"; echo "#   expected: $2"; echo "#   got:      $3"; fi
}
expect_prefix() {  # expect_prefix DESCRIPTION PREFIX ACTUAL
  case "$3" in
    "$2"*) ok "$1" ;;
    *) not_ok "$1"; echo "#   expected: $2..."; echo "#   got:      $3" ;;
  esac
}

# --- bound as cn=reader
expect "alice (bound): uid, mail and both groups, sorted" \
  "user=alice uid=1001 email=alice@example.org groups=physics,rrg-alice" "$(lookup "${BOUND[@]}" alice)"
expect "bob (bound): found, no mail" "user=bob uid=1002 email=- groups=physics" "$(lookup "${BOUND[@]}" bob)"
expect_prefix "an unknown user is not found" "notfound no user nobody in ldap $URI under $BASE" \
  "$(lookup "${BOUND[@]}" nobody)"
expect "a UTF-8 name is found" "user=zoë uid=1003 email=zoe@example.org groups=-" "$(lookup "${BOUND[@]}" 'zoë')"
expect "a name with * ( ) \\ is found, with its group" \
  "user=$WEIRD uid=1004 email=weird@example.org groups=odd" "$(lookup "${BOUND[@]}" "$WEIRD")"
expect "the directory's spelling is used (uid matches ALICE, memberUid needs alice)" \
  "user=alice uid=1001 email=alice@example.org groups=physics,rrg-alice" "$(lookup "${BOUND[@]}" ALICE)"
for attempt in '*' '*)(uid=*' 'alice)(|(uid=*' 'we*' 'a*'; do
  expect_prefix "injection attempt '$attempt' matches nothing" "notfound no user $attempt" \
    "$(lookup "${BOUND[@]}" "$attempt")"
done
out=$(lookup "${BOUND[@]}" $'bob\nERROR forged line')
if [ "$(printf '%s\n' "$out" | wc -l)" = 1 ]; then
  expect_prefix "a name with a newline is not found, in a one-line message" "notfound no user bob?ERROR forged line" "$out"
else
  not_ok "a name with a newline is not found, in a one-line message"
  while IFS= read -r line; do echo "#   $line"; done <<<"$out"
fi
expect "a custom user_filter with two %s" \
  "user=bob uid=1002 email=- groups=physics" \
  "$(lookup "${BOUND[@]}" --user-filter '(&(objectClass=posixAccount)(|(uid=%s)(cn=%s)))' bob)"
expect_prefix "a filter matching several users is an error, not a guess" \
  "unavailable ldap $URI: several entries match" \
  "$(lookup "${BOUND[@]}" --user-filter '(|(uid=%s)(uid=bob))' alice)"

# --- anonymous: the ACL hides mail from anonymous binds
expect "alice (anonymous): found with her groups, mail hidden by the ACL" \
  "user=alice uid=1001 email=- groups=physics,rrg-alice" "$(lookup "${ANON[@]}" alice)"

# --- bind errors
expect "a wrong password is a clear error" \
  "unavailable ldap $URI: bind as $READER_DN: Invalid credentials" \
  "$(lookup "${WRONG[@]}" alice)"
expect "a missing password file is refused at start" \
  "config ldap password_file $T/missing.password: No such file or directory" \
  "$(lookup "${MISSING[@]}" alice)"
expect_prefix "an unknown base is an error naming it" \
  "unavailable ldap $URI: search (uid=alice) under dc=nowhere,dc=org: No such object" \
  "$(lookup --uri "$URI" --base dc=nowhere,dc=org --timeout 2 alice)"

# --- several URIs: the first one is down
DEAD_PORT=$(free_ports 1)
expect "the next URI is used when the first one is down" \
  "user=bob uid=1002 email=- groups=physics" \
  "$(lookup --uri "ldap://127.0.0.1:$DEAD_PORT $URI" --base "$BASE" --timeout 2 bob)"

# --- several threads share the directory
if out=$("$PROBE" "${BOUND[@]}" --threads 8 --repeat 40 alice bob nobody "$WEIRD" 2>&1) &&
  [ "$out" = "lookups=1280 mismatches=0" ]; then
  ok "8 threads x 160 lookups agree with a single lookup"
else
  not_ok "8 threads x 160 lookups agree with a single lookup"
  while IFS= read -r line; do echo "#   $line"; done <<<"$out"
fi

# --- one long-lived directory across slapd stops, restarts and freezes
# (timeout 2 s). The probe reads user names on stdin.
mkfifo "$T/probe.in" "$T/probe.out" || bail "create the probe's fifos"
"$PROBE" "${BOUND[@]}" <"$T/probe.in" >"$T/probe.out" 2>"$T/probe.err" &
PROBE_PID=$!
exec 3>"$T/probe.in" 4<"$T/probe.out"
ask() {  # ask USER: one lookup in the long-lived probe; sets REPLY_LINE and REPLY_MS
  local line
  REPLY_LINE="(no answer: the probe is gone)" REPLY_MS=99999
  kill -0 "$PROBE_PID" 2>/dev/null || return 1
  # SIGPIPE ignored in a subshell only: the probe must keep the default.
  (trap '' PIPE; echo "$1" >&3) 2>/dev/null || return 1
  read -r -t 15 line <&4 || return 1
  REPLY_MS=${line##* ms=}
  REPLY_LINE=${line% ms=*}
}
ALICE="user=alice uid=1001 email=alice@example.org groups=physics,rrg-alice"
ask alice
expect "long-lived directory: alice" "$ALICE" "$REPLY_LINE"

slapd_stop
ask alice
expect_prefix "slapd stopped: Unavailable, naming the server" "unavailable ldap $URI: " "$REPLY_LINE"
if [ "$REPLY_MS" -le 2500 ]; then
  ok "slapd stopped: the answer came within the 2 s timeout (${REPLY_MS} ms): $REPLY_LINE"
else
  not_ok "slapd stopped: the answer came within the 2 s timeout (${REPLY_MS} ms)"
fi

slapd_resume || bail "restart slapd on $URI"
ask alice
expect "slapd restarted: the next call reconnects" "$ALICE" "$REPLY_LINE"
# The pooled session is now idle; slapd restarts again: the lookup must not
# fail because of the dead pooled session.
slapd_stop
slapd_resume || bail "restart slapd on $URI"
ask bob
expect "a pooled session closed by a restart is replaced within the call" \
  "user=bob uid=1002 email=- groups=physics" "$REPLY_LINE"

# The peer resets the pooled session (what a firewall dropping idle
# connections does): liblber's next writes fail with ECONNRESET, then EPIPE,
# which raises SIGPIPE; the call must neither fail nor end the process.
established() { ss -Htn state established "( sport = :$SLAPD_PORT )" 2>/dev/null; }
if command -v ss >/dev/null && [ -n "$(established)" ] &&
  ss -K -tn "( sport = :$SLAPD_PORT )" >/dev/null 2>&1 && [ -z "$(established)" ]; then
  ask alice
  expect "a pooled session reset by the peer is replaced within the call (no SIGPIPE)" "$ALICE" "$REPLY_LINE"
else
  echo "# skipped: resetting the pooled session needs ss -K (root, CONFIG_INET_DIAG_DESTROY)"
fi

slapd_freeze || bail "freeze slapd (SIGSTOP)"
ask alice
expect_prefix "slapd frozen, pooled session: Unavailable (timed out)" \
  "unavailable ldap $URI: search (uid=alice) under $BASE: Timed out" "$REPLY_LINE"
if [ "$REPLY_MS" -ge 1500 ] && [ "$REPLY_MS" -le 3000 ]; then
  ok "slapd frozen, pooled session: gave up after about the 2 s timeout (${REPLY_MS} ms)"
else
  not_ok "slapd frozen, pooled session: gave up after about the 2 s timeout (${REPLY_MS} ms)"
fi
ask bob
expect_prefix "slapd frozen, new session: Unavailable (bind timed out)" \
  "unavailable ldap $URI: bind as $READER_DN: Timed out" "$REPLY_LINE"
if [ "$REPLY_MS" -ge 1500 ] && [ "$REPLY_MS" -le 3000 ]; then
  ok "slapd frozen, new session: gave up after about the 2 s timeout (${REPLY_MS} ms)"
else
  not_ok "slapd frozen, new session: gave up after about the 2 s timeout (${REPLY_MS} ms)"
fi
slapd_thaw
ask alice
expect "slapd continued: lookups work again" "$ALICE" "$REPLY_LINE"

exec 3>&- 4<&-
wait "$PROBE_PID"
rc=$?
PROBE_PID=''
expect "the long-lived probe exits cleanly (no SIGPIPE, no crash)" 0 "$rc"

summary
if [ "$failed" = 0 ]; then exit 0; else exit 1; fi
