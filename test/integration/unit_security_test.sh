#!/bin/bash
# The packaged systemd units' sandboxes must not get weaker: `systemd-analyze
# security --offline=true --threshold=N` rates each unit file as shipped
# (N is ten times the exposure SECURITY.md states) and fails above it. A
# unit that became stricter passes; lower its threshold here and in
# SECURITY.md then, so that it stays there.
#
# Offline rating needs systemd 250 or later (--offline, --threshold); with an
# older systemd-analyze, or none, the test is skipped and says why. As a
# negative control, a copy of the collector's unit without its sandbox lines
# must fail the same threshold.
#
# Usage: unit_security_test.sh PETRICORE_BINARY (unused: the units are rated
# as files). Prints "ok - ..." / "not ok - ..." per check and
# "N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
units=$here/../../packaging/systemd
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$here/../../scripts/lib/tap.sh"

command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed"
version=$(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
if [ -z "$version" ] || [ "$version" -lt 250 ]; then
  skip "systemd-analyze ${version:-?} cannot rate unit files offline (--offline and --threshold came in 250)"
fi

T=$(mktemp -d /tmp/petricore-unitsec.XXXXXX) || bail "create a temp dir"
trap 'rm -rf "$T"' EXIT

# exposure UNIT_FILE: the overall exposure as printed ("2.1").
exposure() {
  systemd-analyze security --offline=true "$1" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
# rated UNIT_FILE THRESHOLD: ok when the unit's exposure is at most
# THRESHOLD / 10.
rated() {
  systemd-analyze security --offline=true --threshold="$2" "$1" >/dev/null 2>&1
}

for spec in petricore-collect.service:21 petricore-serve.service:14 petricore-digest.service:14; do
  unit=${spec%%:*}
  threshold=${spec##*:}
  check "$unit: exposure $(exposure "$units/$unit") is at most $((threshold / 10)).$((threshold % 10))" \
    rated "$units/$unit" "$threshold"
done

# The negative control: the collector's unit without its sandbox (the lines
# from "ProtectSystem=" to the system call filter) rates worse.
sed '/^ProtectSystem=/,/^SystemCallErrorNumber=/d' "$units/petricore-collect.service" >"$T/petricore-collect.service"
if rated "$T/petricore-collect.service" 21; then
  not_ok "a collector unit without its sandbox still passes (exposure $(exposure "$T/petricore-collect.service")): the threshold checks nothing"
else
  ok "a collector unit without its sandbox fails the threshold (exposure $(exposure "$T/petricore-collect.service"))"
fi

summary
[ "$failed" = 0 ]
