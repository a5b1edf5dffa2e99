# shellcheck shell=bash
# The reporting the integration tests share: one "ok - ..." / "not ok - ..."
# line per check and a last line "N passed, M failed", which CI reads.
# Source it before the first check; it defines `passed` and `failed`.

passed=0
failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
summary() { echo "$passed passed, $failed failed"; }
# A test that cannot run on this host: meson counts exit 77 as skipped.
skip() {
  echo "SKIPPED: $*"
  exit 77
}
# A setup step failed: later checks cannot run.
bail() {
  not_ok "$*"
  summary
  exit 1
}
# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}
