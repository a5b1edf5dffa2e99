#!/usr/bin/env bash
# The command-line contract of `petricore collect`: help and version, bad
# options and bad config files exit 2 with one line naming the problem, and
# config-file options work like command-line ones (which win).
set -uo pipefail
petricore=$1
fixtures=${PETRICORE_FIXTURES:-$(dirname "$0")/../fixtures}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { echo "ok - $1"; pass=$((pass + 1)); }
not_ok() { echo "not ok - $1"; fail=$((fail + 1)); }

# A fixture node with one job, so options that change the output can be seen.
case_dir=$fixtures/slurm-v1
roots=(--cgroup-root "$case_dir/cgroup" --proc-root "$case_dir/proc")

# usage_error NAME EXPECTED-SUBSTRING ARGS...: exit 2, exactly one stderr line
# containing the substring, nothing on stdout.
usage_error() {
  local name=$1 want=$2
  shift 2
  "$petricore" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
    ok "$name: exit 2, one line: $(cat "$tmp/err")"
  else
    not_ok "$name: rc=$rc, $lines stderr lines: $(head -c 300 "$tmp/err"); stdout $(wc -c <"$tmp/out") bytes"
  fi
}

"$petricore" --help >"$tmp/out" 2>&1 && grep -q collect "$tmp/out" && ok "--help lists collect" || not_ok "--help"
"$petricore" collect --help >"$tmp/out" 2>&1 && grep -q -- --once-window "$tmp/out" && grep -q -- --job-pattern "$tmp/out" \
  && ok "collect --help documents the options" || not_ok "collect --help"
"$petricore" --version >"$tmp/out" 2>&1 && grep -Eq '^petricore [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out" && ok "--version" || not_ok "--version"

usage_error "no subcommand" "subcommand" 
usage_error "unknown option" "--bogus" collect --bogus
usage_error "missing cgroup root" "--cgroup-root /nonexistent" collect --once --cgroup-root /nonexistent
usage_error "cgroup root is a file" "not a directory" collect --once --cgroup-root /etc/hostname
usage_error "missing proc root" "--proc-root" collect --once --proc-root /nonexistent
usage_error "invalid regex" "invalid regular expression" collect --once --layout pattern --job-pattern '(['
usage_error "pattern without job group" "named group" collect --once --layout pattern --job-pattern 'cpuacct/x'
usage_error "pattern layout without pattern" "--job-pattern" collect --once --layout pattern
usage_error "unknown layout" "--layout" collect --once --layout slurm-v3
usage_error "negative interval" "--interval" collect --interval -1
usage_error "non-numeric interval" "interval" collect --interval soon
usage_error "relative scratch prefix" "--scratch-prefix" collect --once --scratch-prefix scratch
usage_error "bad push URL" "http" collect --push localhost:9091 "${roots[@]}"
usage_error "bad listen address" "listen" collect --listen 127.0.0.1:99999 "${roots[@]}"
usage_error "missing exclude-uid file" "--exclude-uid-file" collect --once --exclude-uid-file "$tmp/none"
printf '0\nroot\n' >"$tmp/uids"
usage_error "malformed exclude-uid file" ":2" collect --once --exclude-uid-file "$tmp/uids" "${roots[@]}"
usage_error "missing config file" "$tmp/none.toml" --config "$tmp/none.toml" collect --once
printf '[collect]\nintervall = 5\n' >"$tmp/typo.toml"
usage_error "unknown config key" "intervall" --config "$tmp/typo.toml" collect --once
printf '[collect]\ninterval = "soon"\n' >"$tmp/badvalue.toml"
usage_error "bad config value" "interval" --config "$tmp/badvalue.toml" collect --once
printf '[prometheus]\nstep = 0\n' >"$tmp/badstep.toml"
usage_error "query step out of range" "[prometheus] step" --config "$tmp/badstep.toml" report 1 --prometheus http://127.0.0.1:9
printf '[rules]\ngpu-index-label = "gpu-index"\n' >"$tmp/badlabel.toml"
usage_error "GPU label not a label name" "gpu-index" --config "$tmp/badlabel.toml" report 1 --prometheus http://127.0.0.1:9

# Config file options apply, and the command line wins over them.
cat >"$tmp/good.toml" <<TOML
[collect]
once = true
once-window = 0.01
instance = "from-config"
cgroup-root = "$case_dir/cgroup"
proc-root = "$case_dir/proc"
TOML
if "$petricore" --config "$tmp/good.toml" collect >"$tmp/out" 2>"$tmp/err" && grep -q 'instance="from-config"' "$tmp/out" \
  && grep -q '^jobs_cpu_time_total{' "$tmp/out"; then
  ok "config file options are used"
else
  not_ok "config file options: $(head -c 300 "$tmp/err")"
fi
if "$petricore" --config "$tmp/good.toml" collect --instance from-cli >"$tmp/out" 2>"$tmp/err" \
  && grep -q 'instance="from-cli"' "$tmp/out" && ! grep -q from-config "$tmp/out"; then
  ok "command line wins over the config file"
else
  not_ok "command line over config: $(head -c 300 "$tmp/err")"
fi

# Excluded UIDs: every job of the fixture's uid 0 disappears.
printf '# staff\n0\n' >"$tmp/uids"
"$petricore" collect --once --once-window 0.01 "${roots[@]}" --exclude-uid-file "$tmp/uids" >"$tmp/out" 2>"$tmp/err"
if ! grep -q 'slurm_job="101"' "$tmp/out" && grep -q 'jobs_info{.*slurm_job="102",.*,uid="65534"' "$tmp/out"; then ok "excluded uid's jobs are skipped, the others kept"
else not_ok "exclude uid file"; fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
