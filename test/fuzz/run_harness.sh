#!/usr/bin/env bash
# One harness as the fuzz suite runs it: its corpus and every input that ever
# crashed it are replayed, then (libFuzzer) it fuzzes for
# PETRICORE_FUZZ_SECONDS (default 5) from there. New inputs go to a scratch
# directory, never into the source tree; a crash (exit status 1, not
# libFuzzer's 77, which meson reads as skipped) is kept under
# PETRICORE_FUZZ_ARTIFACTS/<name>/ and fails the test.
#
#   run_harness.sh libfuzzer|replay HARNESS NAME TEST_FUZZ_DIR
set -euo pipefail
mode=$1 harness=$2 name=$3 dir=$4
inputs=()
for d in "$dir/corpus/$name" "$dir/regressions/$name"; do
  if [ -d "$d" ]; then inputs+=("$d"); fi
done
if [ "$mode" = replay ]; then
  exec "$harness" "${inputs[@]}"
fi
artifacts=${PETRICORE_FUZZ_ARTIFACTS:-$PWD/artifacts}/$name
mkdir -p "$artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
set +e
# The log without libFuzzer's line per new input; the status is the harness's.
# An input over 30 s is a hang: every input runs in milliseconds, the margin
# is for a machine busy with other suites (scripts/fuzz says more).
"$harness" -max_total_time="${PETRICORE_FUZZ_SECONDS:-5}" -timeout=30 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 \
  -artifact_prefix="$artifacts/" "$scratch" "${inputs[@]}" 2>&1 | grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\)'
exit "${PIPESTATUS[0]}"
