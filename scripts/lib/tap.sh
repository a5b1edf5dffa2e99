# shellcheck shell=bash
# The reporting the integration tests share: one "ok - ..." / "not ok - ..."
# line per check and a last line "N passed, M failed", which CI reads.
# The failed checks are repeated just above that line: a CI log that keeps
# only its last lines still says what failed.
# Source it before the first check; it defines `passed` and `failed`.

passed=0
failed=0
failed_checks=()
ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() {
  echo "not ok - $*"
  failed=$((failed + 1))
  failed_checks+=("$*")
}
# The failed checks, a line each (a suite that prints logs after its
# summary repeats them there too).
list_failed() {
  local what
  for what in "${failed_checks[@]}"; do echo "failed: ${what:0:400}"; done
}
# The last line, and the verdict as the status: a suite that ends with it
# fails when a check did.
summary() {
  list_failed
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ]
}
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
