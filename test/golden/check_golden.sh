#!/bin/bash
# Golden test of `petricore collect --once` over the fixture trees: regenerates
# every case into a temp dir, diffs it against the committed
# test/fixtures/<case>/expected.prom, and lints each golden file with
# `promtool check metrics`.
#
# Usage: check_golden.sh PETRICORE      (meson runs it with PETRICORE_FIXTURES set)
# Exit 0 when every check passes, 1 otherwise; the last line is "N passed, M failed".
# After an intended change: test/golden/regenerate.sh PETRICORE, review, commit.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export PETRICORE_FIXTURES=${PETRICORE_FIXTURES:-$here/../fixtures}
petricore=${1:?usage: check_golden.sh PETRICORE}

# promtool's lint findings that the metric contract (ARCHITECTURE.md §4) makes
# on purpose: the names are the users' and must not change. Anything else
# promtool says is a failure.
known_lint='^(jobs_cpu_time_total non-counter metrics should not have "_total" suffix|jobs_(read|write|thread)_count non-histogram and non-summary metrics should not have "_count" suffix|jobs_(read|write|memory_limit|memory_peak|memory_anon|memory_shmem|memory_file|memory_kernel|memory_swap|memory_usage|gpu_memory_used|gpu_memory_total)_mb metric names should not contain abbreviated units)$'

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$here/regenerate.sh" --out "$tmp" "$petricore"; then
  fail "regenerate.sh could not run petricore on every case"
fi

promtool=$(command -v promtool || true)
[ -n "$promtool" ] || echo "note: promtool not found, the exposition lint is skipped"

cases=0
for case_dir in "$PETRICORE_FIXTURES"/*/; do
  case_dir=${case_dir%/}
  name=$(basename "$case_dir")
  [ -d "$case_dir/cgroup" ] && [ -d "$case_dir/proc" ] || continue
  cases=$((cases + 1))
  golden=$case_dir/expected.prom
  if [ ! -f "$golden" ]; then
    fail "$name: no golden file $golden (run regenerate.sh)"
    continue
  fi
  if [ ! -f "$tmp/$name.prom" ]; then
    fail "$name: no output was produced"
  elif diff -u --label "$name/expected.prom" --label "$name (this build)" "$golden" "$tmp/$name.prom"; then
    pass "$name: output matches the golden file"
  else
    fail "$name: output differs from the golden file (diff above; if intended, run regenerate.sh and review)"
  fi
  if [ -n "$promtool" ]; then
    lint=$("$promtool" check metrics < "$golden" 2>&1)
    rc=$?
    unexpected=$(printf '%s\n' "$lint" | grep -Ev "$known_lint" | grep -v '^$' || true)
    # promtool exits 3 for lint findings and 1 when the text does not parse.
    if [ -z "$unexpected" ] && { [ $rc -eq 0 ] || [ $rc -eq 3 ]; }; then
      pass "$name: promtool check metrics"
    else
      printf '%s\n' "$unexpected"
      fail "$name: promtool check metrics (exit $rc)"
    fi
  fi
done
[ $cases -gt 0 ] || fail "no fixture cases under $PETRICORE_FIXTURES"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
