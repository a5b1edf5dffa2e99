# Shell functions (bash, sourced) to run a REAL OpenLDAP slapd as a plain
# process for a test: a slapd.conf in a temp dir (mdb backend, the core,
# cosine, inetorgperson and nis schemas), listening on loopback only, stopped
# by PID. Debian's own instance (/etc/ldap/slapd.d) is never used or started.
# Modelled on the team's realstack notes (slapd.conf rather than cn=config,
# back_mdb loaded as a module, `-d 0` to stay in the foreground).
#
#   source scripts/lib/slapd.sh
#   why=$(slapd_unavailable); [ -z "$why" ] || skip "$why"
#   slapd_start "$T/slapd" "$(free_ports 1)" || bail "start slapd"
#   slapd_load_base                   # the suffix, ou=people, ou=groups
#   slapd_add_user alice 1001 alice@example.org
#   slapd_add_group physics 2001 alice
#   slapd_load <file.ldif             # any other LDIF, added as the admin
#   ... $SLAPD_URI, $SLAPD_SUFFIX ...
#   slapd_freeze / slapd_thaw         # SIGSTOP / SIGCONT: a hung server
#   slapd_stop; slapd_resume          # down, then up again with the same data
#   slapd_stop                        # also from the EXIT trap; idempotent
#
# Set before slapd_start (all optional):
#   SLAPD_SUFFIX          dc=example,dc=org
#   SLAPD_ADMIN_PASSWORD  secret (rootpw of cn=admin,<suffix>)
#   SLAPD_ACCESS          the access rules; default: passwords only for binds,
#                         everything else readable by anyone
# After slapd_start: SLAPD_DIR SLAPD_PORT SLAPD_URI SLAPD_LDAPI_URI SLAPD_PID
#   SLAPD_ADMIN_DN, and slapd's output in $SLAPD_DIR/slapd.log.
# Only ldap-utils' clients (ldapadd, ldapsearch) and slapd/slaptest are used.
# shellcheck shell=bash

SLAPD_PID=${SLAPD_PID:-}

# Empty when slapd can run here, else why not (for "SKIPPED: <why>").
slapd_unavailable() {
  local tool
  for tool in slapd slaptest; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] ||
      { echo "$tool is not installed (Debian package slapd)"; return 0; }
  done
  for tool in ldapadd ldapsearch; do
    command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed (Debian package ldap-utils)"; return 0; }
  done
  [ -f /etc/ldap/schema/nis.schema ] || { echo "/etc/ldap/schema/nis.schema is missing (package slapd)"; return 0; }
  [ -e /usr/lib/ldap/back_mdb.la ] || [ -e /usr/lib/ldap/back_mdb.so ] ||
    ls /usr/lib/ldap/back_mdb* >/dev/null 2>&1 || { echo "slapd's back_mdb module is missing"; return 0; }
  return 0
}

_slapd_bin() { command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"; }

# slapd_start DIR PORT: writes DIR/slapd.conf, an empty DIR/db, starts slapd in
# the foreground mode (-d 0: no fork, so $! is slapd itself) and waits up to
# 10 s for it to answer. Returns 1 (with slapd's log on stderr) on failure.
slapd_start() {
  SLAPD_DIR=$1
  SLAPD_PORT=$2
  SLAPD_SUFFIX=${SLAPD_SUFFIX:-dc=example,dc=org}
  SLAPD_ADMIN_DN="cn=admin,$SLAPD_SUFFIX"
  SLAPD_ADMIN_PASSWORD=${SLAPD_ADMIN_PASSWORD:-secret}
  SLAPD_URI="ldap://127.0.0.1:$SLAPD_PORT"
  SLAPD_LDAPI_URI="ldapi://$(printf '%s' "$SLAPD_DIR/ldapi" | sed 's,/,%2F,g')"
  local access=${SLAPD_ACCESS:-"access to attrs=userPassword by anonymous auth by * none
access to * by * read"}
  rm -rf "$SLAPD_DIR/db"
  mkdir -p "$SLAPD_DIR/db" || return 1
  cat >"$SLAPD_DIR/slapd.conf" <<EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile  $SLAPD_DIR/slapd.pid
argsfile $SLAPD_DIR/slapd.args
database mdb
maxsize  104857600
suffix   "$SLAPD_SUFFIX"
rootdn   "$SLAPD_ADMIN_DN"
rootpw   $SLAPD_ADMIN_PASSWORD
directory $SLAPD_DIR/db
index objectClass eq
index uid,mail,memberUid eq
$access
EOF
  if ! "$(_slapd_bin slaptest)" -u -f "$SLAPD_DIR/slapd.conf" >"$SLAPD_DIR/slaptest.log" 2>&1; then
    cat "$SLAPD_DIR/slaptest.log" >&2
    return 1
  fi
  slapd_resume
  return $?
}

# Starts slapd again on the same directory, port and data (after slapd_stop).
# slapd gets none of the caller's descriptors 3-9 (a test's fifo or pipe held
# open by slapd would never see its end).
slapd_resume() {
  "$(_slapd_bin slapd)" -d 0 -f "$SLAPD_DIR/slapd.conf" -h "$SLAPD_URI/ $SLAPD_LDAPI_URI" \
    </dev/null >>"$SLAPD_DIR/slapd.log" 2>&1 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
  SLAPD_PID=$!
  local _
  for _ in $(seq 1 100); do
    slapd_ready && return 0
    kill -0 "$SLAPD_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "slapd did not answer on $SLAPD_URI; its log:" >&2
  tail -n 20 "$SLAPD_DIR/slapd.log" >&2
  slapd_stop
  return 1
}

slapd_ready() {
  ldapsearch -x -H "$SLAPD_URI" -o nettimeout=1 -s base -b "" namingContexts >/dev/null 2>&1
}

# Stops the slapd this shell started (by PID: TERM, up to 10 s, then KILL).
# A slapd frozen with SIGSTOP is continued first. Safe to call twice.
# shellcheck source=SCRIPTDIR/process.sh
source "$(dirname "${BASH_SOURCE[0]}")/process.sh"

slapd_stop() {
  local pid=$SLAPD_PID
  [ -n "$pid" ] || return 0
  SLAPD_PID=''
  kill -CONT "$pid" 2>/dev/null  # a frozen slapd (slapd_freeze) must see the TERM
  stop_pid "$pid"
}

# slapd_freeze: SIGSTOP, then waits (up to 5 s) until every thread of slapd
# is stopped; kill returns before that, and a thread still running could
# answer one more request. Its sockets stay open: clients hang, as with a
# hung server. slapd_thaw continues it.
slapd_freeze() {
  local task state _ all
  kill -STOP "$SLAPD_PID" || return 1
  for _ in $(seq 1 500); do
    all=1
    for task in /proc/"$SLAPD_PID"/task/*/stat; do
      state=$(sed 's/.*) //' "$task" 2>/dev/null | cut -d' ' -f1)
      [ -z "$state" ] || [ "$state" = T ] || { all=0; break; }
    done
    [ "$all" = 1 ] && return 0
    sleep 0.01
  done
  return 1
}

slapd_thaw() { kill -CONT "$SLAPD_PID"; }

# slapd_load <LDIF: adds the entries read on stdin as the admin.
slapd_load() {
  ldapadd -x -H "$SLAPD_URI" -D "$SLAPD_ADMIN_DN" -w "$SLAPD_ADMIN_PASSWORD" >/dev/null
}

# slapd_load_base: the suffix entry plus ou=people and ou=groups.
slapd_load_base() {
  local dc=${SLAPD_SUFFIX%%,*}
  dc=${dc#dc=}
  slapd_load <<EOF
dn: $SLAPD_SUFFIX
objectClass: dcObject
objectClass: organization
dc: $dc
o: $dc

dn: ou=people,$SLAPD_SUFFIX
objectClass: organizationalUnit
ou: people

dn: ou=groups,$SLAPD_SUFFIX
objectClass: organizationalUnit
ou: groups
EOF
}

# slapd_add_user UID UIDNUMBER [MAIL]: an inetOrgPerson + posixAccount under
# ou=people (RDN cn=<uid>, so names that need DN escaping are not an issue
# beyond the cn). The uid may hold any UTF-8 and * ( ) \ characters.
slapd_add_user() {
  local uid=$1 number=$2 mail=${3:-}
  {
    echo "dn:: $(printf 'cn=%s,ou=people,%s' "$(_slapd_dn_escape "$uid")" "$SLAPD_SUFFIX" | base64 -w0)"
    echo "objectClass: inetOrgPerson"
    echo "objectClass: posixAccount"
    echo "uid:: $(printf '%s' "$uid" | base64 -w0)"
    echo "cn:: $(printf '%s' "$uid" | base64 -w0)"
    echo "sn: user"
    echo "uidNumber: $number"
    echo "gidNumber: $number"
    echo "homeDirectory: /home/$number"
    [ -n "$mail" ] && echo "mail: $mail"
  } | slapd_load
}

# slapd_add_group CN GIDNUMBER [MEMBERUID...]: a posixGroup under ou=groups.
slapd_add_group() {
  local cn=$1 number=$2 m
  shift 2
  {
    echo "dn: cn=$cn,ou=groups,$SLAPD_SUFFIX"
    echo "objectClass: posixGroup"
    echo "cn: $cn"
    echo "gidNumber: $number"
    for m in "$@"; do echo "memberUid:: $(printf '%s' "$m" | base64 -w0)"; done
  } | slapd_load
}

# RFC 4514: backslash-escape the characters special in a DN value.
_slapd_dn_escape() {
  printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/\([,+"<>;=#]\)/\\\1/g'
}
