#!/bin/bash
# Packaging test: the files in packaging/ and the RPM built from a
# `meson dist` tarball.
#
# Checks, quick ones first:
#   config   packaging/petricore.toml is accepted as it ships (petricore loads
#            the config file on every invocation, before --help is handled),
#            and so is a copy with every commented-out key uncommented (so no
#            example key is misspelt or has a value of the wrong type); a copy
#            with one misspelt key and one with a bad value are rejected with
#            exit 2 naming the key (the negative control: those invocations
#            really read the file); every long option of every subcommand and
#            config section (from `petricore <section> --help`) appears in the
#            example; `collect --once` over a fixture tree prints the same with
#            the example as with no config (its uncommented keys are defaults).
#   units    systemd-analyze verify accepts both units without a warning (a
#            copy whose ExecStart names the binary under test; skipped without
#            systemd-analyze); the collector runs as petricore with only
#            CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE (ambient) and a read-only
#            /proc, serve runs as petricore with no capabilities
#            (unit_security_test.sh rates their sandboxes).
#   examples the Grafana dashboard is JSON with a jobid variable, its PromQL
#            and the Prometheus examples pass promtool (when installed); the
#            Epilog cgroup clean-up removes only the ended job's empty cgroup
#            directories, deepest first, from a fake tree.
#   rpm      a `meson dist --no-tests --formats gztar` tarball, built in a
#            throwaway git clone of the working tree, and `rpmbuild -ba` of
#            packaging/petricore.spec from it; the binary RPM holds the binary,
#            the units, the config as %config(noreplace), the MailProg wrapper,
#            the docs and the man pages (when man/ installs any), requires the
#            dlopen()ed libraries and creates the petricore user; the packaged
#            binary runs and the packaged units verify.
#   deb      packaging/build-deb (DEB_BUILD_OPTIONS nocheck: without the unit
#            tests, which the unit and vm suites run) on the same copy of the work tree, the .deb's
#            fields, contents, conffile and lintian's verdict, and an install,
#            remove and purge on this host that leaves it as it was
#            (packaging_deb.sh says what exactly).
#
# `meson dist` packs the committed HEAD of a git checkout only. To test what
# is in the working tree, uncommitted and untracked (not ignored) files
# included, the tree is copied into a temporary git repository and committed
# there; the project's own repository is not touched. (Run by hand in the
# project, `meson dist --allow-dirty` would leave uncommitted changes out.)
#
# Debian's rpmbuild knows none of the BuildRequires (they are Debian
# packages, not RPMs, so the rpm database is empty): rpmbuild runs with
# --nodeps. The RPM is checked for its contents only; its automatic
# dependencies name Debian's sonames.
#
# Usage: packaging_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 (skipped) without rpmbuild and
# without debhelper (with one of them, the other part says it did not run).
set -u
petricore=${1:?usage: packaging_test.sh PETRICORE_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
fixtures=${PETRICORE_FIXTURES:-$src/test/fixtures}
# shellcheck source=scripts/lib/tap.sh
. "$here/../../scripts/lib/tap.sh"

for tool in git meson python3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
# The RPM part needs rpmbuild and a way to unpack an RPM: rpm2archive
# (rpm >= 4.15), else rpm2cpio and cpio. The Debian part needs debhelper
# and dpkg-dev (and runs lintian when installed). Without either the suite is skipped; without one, that part
# is, and the output says so.
no_rpm=
for tool in rpmbuild rpm rpmspec; do
  command -v "$tool" >/dev/null || no_rpm=${no_rpm:-"$tool is not installed (Debian: apt-get install rpm)"}
done
if command -v rpm2archive >/dev/null; then
  unpack_rpm() { rpm2archive - <"$1" | tar -xzf - -C "$2"; }
elif command -v rpm2cpio >/dev/null && command -v cpio >/dev/null; then
  unpack_rpm() { (cd "$2" && rpm2cpio "$1" | cpio -idm --quiet); }
else
  no_rpm=${no_rpm:-"neither rpm2archive nor rpm2cpio and cpio are installed"}
fi
no_deb=
for tool in dpkg-buildpackage dpkg-deb dpkg-architecture dh; do
  command -v "$tool" >/dev/null || no_deb=${no_deb:-"$tool is not installed (apt-get install dpkg-dev debhelper)"}
done
[ -n "$no_rpm" ] && [ -n "$no_deb" ] && skip "no RPM: $no_rpm; no Debian package: $no_deb"
[ -x "$petricore" ] || bail "$petricore is not an executable"

T=$(mktemp -d /tmp/petricore-packaging.XXXXXX)
cleanup_host=:  # the Debian part's undo of its install on this host, when it made one
trap '$cleanup_host; rm -rf "$T"' EXIT
pkg=$src/packaging
config=$pkg/petricore.toml
started=$(date +%s)

# ---------------------------------------------------------------- config
quiet() { "$@" >/dev/null 2>&1; }
check "the example config is accepted as shipped" \
  quiet "$petricore" --config "$config" collect --help
"$petricore" --config "$config" collect --help >/dev/null 2>"$T/err"
check "... with nothing on stderr" test ! -s "$T/err"

# Every commented-out "# key = value" line uncommented.
python3 - "$config" "$T/full.toml" <<'EOF'
import re, sys
out = []
for line in open(sys.argv[1]):
    m = re.match(r'^# ([a-z][a-z_-]*) = (.*)$', line.rstrip('\n'))
    out.append(m.group(1) + ' = ' + m.group(2) if m else line.rstrip('\n'))
open(sys.argv[2], 'w').write('\n'.join(out) + '\n')
EOF
keys=$(grep -c '^[a-z][a-z_-]* = ' "$T/full.toml")
check "the example with all its $keys keys uncommented is accepted" \
  quiet "$petricore" --config "$T/full.toml" report --help

# Negative controls: the same invocations reject a misspelt key and a bad value.
sed 's/^# \(user_filter\) = /user_filer = /' "$config" >"$T/bad-key.toml"
"$petricore" --config "$T/bad-key.toml" report --help >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "unknown key 'user.filer' in \[ldap\]" "$T/err"; then
  ok "a misspelt key is rejected: exit 2, $(head -1 "$T/err")"
else
  not_ok "a misspelt key is rejected (exit $rc, want 2 naming user_filer: $(head -1 "$T/err"))"
fi
sed 's/^interval = 15.0$/interval = "15 s"/' "$config" >"$T/bad-value.toml"
grep -q '^interval = "15 s"' "$T/bad-value.toml" || bail "the example has no 'interval = 15.0' line to break"
"$petricore" --config "$T/bad-value.toml" init-db --help >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'interval' "$T/err"; then
  ok "a value of the wrong type is rejected: exit 2, $(head -1 "$T/err")"
else
  not_ok "a value of the wrong type is rejected (exit $rc, want 2: $(head -1 "$T/err"))"
fi

# Every option of every section is in the example (commented or not).
missing=$(
  for section in "" collect serve report archive "archive db" init-db prometheus accounting "accounting db" ldap smtp rules; do
    # shellcheck disable=SC2086 # "accounting db" is two words on purpose
    "$petricore" --config /dev/null $section --help 2>&1 |
      sed -n 's/^ *\(-[a-zA-Z],\)\{0,1\}--\([a-z][a-z-]*\).*/\2/p' |
      grep -v -x -e help -e version -e config |
      sed "s|^|${section// /.}:|"
  done | python3 -c '
import re, sys
keys, section = set(), ""
for line in open(sys.argv[1]):
    m = re.match(r"^\[([a-z.-]+)\]", line)
    if m:
        section = m.group(1)
        continue
    m = re.match(r"^(?:# )?([a-z][a-z_-]*) = ", line)
    if m:
        keys.add(section + ":" + m.group(1).replace("_", "-"))
options = [l.strip() for l in sys.stdin if l.strip()]
if len(options) < 100:
    print("only %d options found in the --help texts" % len(options))
print(" ".join(o for o in options if o not in keys))
' "$config"
)
if [ -z "${missing// /}" ]; then
  ok "every option of every subcommand and section is in the example"
else
  not_ok "options missing from the example ([section]:key): $missing"
fi

if [ -d "$fixtures/slurm-v1/cgroup" ]; then
  once() {
    "$petricore" --config "$1" collect --once --once-window 0.01 --instance fixture \
      --cgroup-root "$fixtures/slurm-v1/cgroup" --proc-root "$fixtures/slurm-v1/proc" |
      sed '/^petricore_collect_duration_seconds[{ ]/d'
  }
  once "$config" >"$T/once-example.prom" 2>"$T/once.err" && once /dev/null >"$T/once-none.prom" 2>>"$T/once.err"
  if grep -q '^jobs_' "$T/once-example.prom" && cmp -s "$T/once-example.prom" "$T/once-none.prom"; then
    ok "collect --once with the example config gives the defaults' output ($(grep -c '^jobs_' "$T/once-example.prom") jobs_ samples)"
  else
    not_ok "collect --once with the example config differs from no config: $(diff "$T/once-none.prom" "$T/once-example.prom" | head -5) $(head -2 "$T/once.err")"
  fi
fi

# ---------------------------------------------------------------- units
unit_has() { # UNIT LINE...: ok when the unit has every LINE (whole lines)
  local unit=$pkg/systemd/$1 line
  shift
  for line; do grep -q -x -e "$line" "$unit" || return 1; done
}
both_units_have() { unit_has petricore-collect.service "$1" && unit_has petricore-serve.service "$1"; }
check "collect keeps only CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE, as ambient capabilities of a non-root user" \
  unit_has petricore-collect.service 'CapabilityBoundingSet=CAP_DAC_READ_SEARCH CAP_SYS_PTRACE' \
  'AmbientCapabilities=CAP_DAC_READ_SEARCH CAP_SYS_PTRACE'
check "collect runs petricore --config /etc/petricore/petricore.toml collect, with MemoryMax=64M" \
  unit_has petricore-collect.service 'ExecStart=/usr/bin/petricore --config /etc/petricore/petricore.toml collect' \
  MemoryMax=64M ProtectHome=yes ReadOnlyPaths=/proc
check "collect runs as petricore, not root" unit_has petricore-collect.service User=petricore DynamicUser=no
check "serve runs as petricore with an empty capability bounding set" \
  unit_has petricore-serve.service User=petricore DynamicUser=no CapabilityBoundingSet= ProtectHome=yes \
  'ExecStart=/usr/bin/petricore --config /etc/petricore/petricore.toml serve'
for directive in ProtectSystem=strict PrivateTmp=yes NoNewPrivileges=yes ProtectKernelTunables=yes \
  ProtectControlGroups=yes 'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' Restart=on-failure; do
  check "both units set $directive" both_units_have "$directive"
done

# systemd-analyze verify checks that ExecStart's program exists: verify a
# copy naming the binary under test. It exits 0 on unknown keys and bad
# values, so any output counts as a failure too.
verify_units() { # UNIT...: ok when verify exits 0 and prints nothing
  systemd-analyze verify --man=no "$@" >"$T/verify.out" 2>&1 && [ ! -s "$T/verify.out" ]
}
have_systemd_analyze=
if command -v systemd-analyze >/dev/null && systemd-analyze verify --help >/dev/null 2>&1; then
  have_systemd_analyze=1
  mkdir -p "$T/units"
  for unit in petricore-collect.service petricore-serve.service petricore-digest.service petricore-digest.timer; do
    sed "s|^ExecStart=/usr/bin/petricore |ExecStart=$(realpath "$petricore") |" "$pkg/systemd/$unit" >"$T/units/$unit"
  done
  if verify_units "$T/units/petricore-collect.service" "$T/units/petricore-serve.service" \
    "$T/units/petricore-digest.service" "$T/units/petricore-digest.timer"; then
    ok "systemd-analyze verify accepts the units (collect, serve, the digest's service and timer)"
  else
    not_ok "systemd-analyze verify: $(head -3 "$T/verify.out")"
  fi
else
  echo "# systemd-analyze verify is not available: units not verified"
fi

# ---------------------------------------------------------------- examples
# shellcheck disable=SC2016 # $jobid is Grafana's
check "the Grafana dashboard is valid JSON with a jobid text variable" \
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert any(v["name"] == "jobid" and v["type"] == "textbox" for v in d["templating"]["list"])
assert all("$jobid" in t["expr"] for p in d["panels"] for t in p.get("targets", []))
' "$pkg/grafana/petricore-job.json"
absent=
for metric in jobs_cpu_percent jobs_cpus_allocated jobs_rss jobs_memory_limit_mb jobs_read_mb jobs_write_mb \
  jobs_opened_files jobs_thread_count jobs_cpu_time_core jobs_gpus_used utilization_gpu; do
  grep -q -w "$metric" "$pkg/grafana/petricore-job.json" || absent="$absent $metric"
done
check "the dashboard queries CPU, memory, I/O, files, threads, per-core and GPU metrics${absent:+ (missing:$absent)}" \
  test -z "$absent"
if command -v promtool >/dev/null; then
  # The panels' queries as recording rules, so that promtool parses them.
  python3 - "$pkg/grafana/petricore-job.json" >"$T/dashboard-rules.yml" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print("groups:\n  - name: dashboard\n    rules:")
exprs = [t["expr"] for p in d["panels"] for t in p.get("targets", [])]
for i, e in enumerate(exprs):
    e = e.replace("$jobid", "42").replace("$__rate_interval", "1m").replace("$expected", "80")
    print("      - record: dashboard_query_%d\n        expr: %s" % (i, json.dumps(e)))
EOF
  check "promtool parses every query of the dashboard" quiet promtool check rules "$T/dashboard-rules.yml"
  for file in prometheus-pull.yml prometheus-pushgateway.yml; do
    check "promtool accepts prometheus/$file" quiet promtool check config "$pkg/prometheus/$file"
  done
else
  echo "# promtool is not installed: PromQL and Prometheus configs not checked"
fi
check "the Pushgateway example sets honor_labels: true" grep -q 'honor_labels: true' "$pkg/prometheus/prometheus-pushgateway.yml"

# The Epilog clean-up on a fake v1 tree: job 7 ended (its empty dirs go, the
# freezer step with a file in it stays, as a busy cgroup would), job 8 runs.
for ctl in cpuacct memory; do
  mkdir -p "$T/cg/$ctl/slurm_node1/uid_1001/job_7/step_batch/task_0" "$T/cg/$ctl/slurm_node1/uid_1001/job_7/step_0/task_0" \
    "$T/cg/$ctl/slurm_node1/uid_1001/job_8/step_batch/task_0"
done
mkdir -p "$T/cg/cpuset/slurm/uid_1001/job_7/step_batch" "$T/cg/freezer/slurm/uid_1001/job_7/step_extern"
touch "$T/cg/freezer/slurm/uid_1001/job_7/step_extern/cgroup.procs"
PETRICORE_CGROUP_ROOT=$T/cg SLURM_JOB_ID=7 SLURM_JOB_UID=1001 "$pkg/slurm/epilog-cgroup-cleanup.sh"
rc=$?
left=$(cd "$T/cg" && find . -path '*job_7*' -type d | sort | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$left" = "./freezer/slurm/uid_1001/job_7 ./freezer/slurm/uid_1001/job_7/step_extern " ] &&
  [ -d "$T/cg/memory/slurm_node1/uid_1001/job_8/step_batch/task_0" ] && [ -d "$T/cg/cpuset/slurm/uid_1001" ]; then
  ok "the Epilog clean-up removes the ended job's empty cgroups only"
else
  not_ok "the Epilog clean-up (exit $rc) left: $left"
fi
SLURM_JOB_ID='7;x' PETRICORE_CGROUP_ROOT=$T/cg "$pkg/slurm/epilog-cgroup-cleanup.sh"
check "... and exits 0 on a strange job id" test $? = 0

# ---------------------------------------------------------------- dist + rpm
version=$(meson introspect --projectinfo "$src/meson.build" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
if [ -z "$no_rpm" ]; then
  spec_version=$(rpmspec -q --srpm --qf '%{version}' "$pkg/petricore.spec" 2>/dev/null)
  check "the spec's Version ($spec_version) is meson.build's ($version)" test "$spec_version" = "$version"
fi

# The working tree (tracked and untracked, not ignored files) as one commit
# of a throwaway repository.
mkdir -p "$T/src"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
  tar --null --files-from=- --ignore-failed-read -cf - 2>/dev/null) | tar -C "$T/src" -xf - ||
  bail "copying the working tree to $T/src"
if ! { git -C "$T/src" init -q && git -C "$T/src" add -A &&
  git -C "$T/src" -c user.name=packaging-test -c user.email=packaging-test@localhost commit -q -m snapshot; }; then
  bail "committing the copy in $T/src"
fi
if ! { meson setup "$T/dist-build" "$T/src" -Dtests=false >"$T/dist.log" 2>&1 &&
  meson dist -C "$T/dist-build" --no-tests --formats gztar --allow-dirty >>"$T/dist.log" 2>&1; }; then
  bail "meson dist: $(tail -3 "$T/dist.log")"
fi
tarball=$T/dist-build/meson-dist/petricore-$version.tar.gz
[ -f "$tarball" ] || bail "meson dist made no $tarball"
tar -tzf "$tarball" >"$T/tarball.list"
tarball_has() { # PATH...: ok when the tarball holds every PATH
  local path
  for path; do grep -q -x "petricore-$version/$path" "$T/tarball.list" || return 1; done
}
check "the dist tarball holds the spec, the Debian packaging, the units and the MailProg wrapper" \
  tarball_has packaging/petricore.spec packaging/debian/control packaging/debian/rules packaging/build-deb \
  packaging/systemd/petricore-collect.service packaging/petricore-mailprog
ok "meson dist made $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB) in $(($(date +%s) - started)) s since the start"

# ---------------------------------------------------------------- rpm
rpm_part() {
  mkdir -p "$T/rpm/SOURCES"
  cp "$tarball" "$T/rpm/SOURCES/"
  rpm_started=$(date +%s)
  # The build directory is under $T, new each run; with the working
  # directory left out of ccache's hash (it is only in the debug info) a
  # rerun finds the objects of the last one.
  if CCACHE_NOHASHDIR=true rpmbuild -ba --nodeps --define "_topdir $T/rpm" \
    --define "_smp_mflags -j${PETRICORE_RPM_JOBS:-2}" "$pkg/petricore.spec" >"$T/rpmbuild.log" 2>&1; then
    ok "rpmbuild -ba built the RPMs in $(($(date +%s) - rpm_started)) s"
  else
    log=$T/rpmbuild.log
    if [ -n "${PETRICORE_ARTIFACTS:-}" ] && mkdir -p "$PETRICORE_ARTIFACTS"; then
      cp "$T/rpmbuild.log" "$PETRICORE_ARTIFACTS/rpmbuild.log" && log=$PETRICORE_ARTIFACTS/rpmbuild.log
    fi
    tail -20 "$T/rpmbuild.log" | sed 's/^/# /'
    bail "rpmbuild -ba failed: $(grep -m3 -E '^error|error:' "$T/rpmbuild.log") (log: $log)"
  fi
  rpmfile=$(find "$T/rpm/RPMS" -name "petricore-$version-*.rpm" ! -name '*debug*' | head -1)
  srpm=$(find "$T/rpm/SRPMS" -name "petricore-$version-*.src.rpm" | head -1)
  [ -n "$rpmfile" ] || bail "no binary RPM under $T/rpm/RPMS"
  check "a source RPM was built too" test -n "$srpm"

  rpm -qlp "$rpmfile" >"$T/files" 2>/dev/null
  for path in /usr/bin/petricore /usr/libexec/petricore/petricore-mailprog \
    /usr/lib/systemd/system/petricore-collect.service /usr/lib/systemd/system/petricore-serve.service \
    /etc/petricore/petricore.toml /usr/share/doc/petricore/grafana/petricore-job.json \
    /usr/share/doc/petricore/prometheus/prometheus-pull.yml /usr/share/doc/petricore/prometheus/prometheus-pushgateway.yml \
    /usr/share/doc/petricore/slurm/epilog-notes.md /usr/share/doc/petricore/slurm/epilog-cgroup-cleanup.sh \
    /usr/share/doc/petricore/README.md; do
    check "the RPM holds $path" grep -q -x "$path" "$T/files"
  done
  # %license's directory is named petricore on EL/Fedora, petricore-<version> by Debian's rpm.
  check "the RPM holds the LICENSE" grep -q -x "/usr/share/licenses/petricore\(-$version\)\{0,1\}/LICENSE" "$T/files"
  # Man pages: whatever meson installs from man/, if the tree has it by now.
  if [ -f "$src/man/meson.build" ]; then
    man_pages=$(grep -c '^/usr/share/man/man[1-8]/petricore.*\.[1-8]' "$T/files")
    check "the RPM holds the man pages ($man_pages)" test "$man_pages" -gt 0
  else
    echo "# man/meson.build does not exist (yet): no man pages to package"
  fi
  rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$rpmfile" 2>/dev/null >"$T/fflags"
  check "/etc/petricore/petricore.toml is %config(noreplace)" grep -q -x 'cn /etc/petricore/petricore.toml' "$T/fflags"
  rpm -qp --requires "$rpmfile" 2>/dev/null >"$T/requires"
  for lib in libcurl openldap mariadb-connector-c sqlite-libs cairo; do
    check "the RPM requires $lib (dlopen()ed)" grep -q "^$lib\((x86-64)\|\b\)" "$T/requires"
  done
  rpm -qp --scripts "$rpmfile" 2>/dev/null >"$T/scripts"
  check "the RPM's %pre creates the petricore system user" \
    grep -q 'getent passwd petricore' "$T/scripts"
  check "... as a system user (useradd -r)" grep -q 'useradd -r ' "$T/scripts"

  # The package's contents work: the binary runs, the units verify against it.
  mkdir -p "$T/root"
  unpack_rpm "$rpmfile" "$T/root" || bail "unpacking $rpmfile"
  check "the packaged petricore runs: $("$T/root/usr/bin/petricore" --version 2>&1)" \
    quiet "$T/root/usr/bin/petricore" --version
  check "the packaged config is the example" cmp -s "$T/root/etc/petricore/petricore.toml" "$config"
  check "the packaged MailProg wrapper is executable" test -x "$T/root/usr/libexec/petricore/petricore-mailprog"
  for unit in petricore-collect.service petricore-serve.service; do
    check "the packaged $unit is packaging/systemd/$unit" \
      cmp -s "$T/root/usr/lib/systemd/system/$unit" "$pkg/systemd/$unit"
  done
  # (verify --root=$T/root would want the whole of systemd's units in there.)
  if [ -n "$have_systemd_analyze" ]; then
    mkdir -p "$T/packaged-units"
    for unit in petricore-collect.service petricore-serve.service; do
      sed "s|^ExecStart=/usr/bin/petricore |ExecStart=$T/root/usr/bin/petricore |" \
        "$T/root/usr/lib/systemd/system/$unit" >"$T/packaged-units/$unit"
    done
    if verify_units "$T/packaged-units/petricore-collect.service" "$T/packaged-units/petricore-serve.service"; then
      ok "systemd-analyze verify accepts the packaged units with the packaged binary"
    else
      not_ok "systemd-analyze verify of the packaged units: $(head -3 "$T/verify.out")"
    fi
  fi
}

# ---------------------------------------------------------------- deb
# shellcheck source=test/integration/packaging_deb.sh
. "$here/packaging_deb.sh"

if [ -n "$no_rpm" ]; then echo "# no RPM built: $no_rpm"; else rpm_part; fi
if [ -n "$no_deb" ]; then echo "# no Debian package built: $no_deb"; else deb_part; fi

echo "# run time $(($(date +%s) - started)) s"
summary
[ "$failed" = 0 ]
