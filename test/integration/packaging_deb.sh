# shellcheck shell=bash
# The Debian part of the packaging suite (sourced by packaging_test.sh, which
# sets src, pkg, config, version, T, started, the tap.sh functions, quiet,
# verify_units and have_systemd_analyze, and calls deb_part).
#
#   build    packaging/build-deb (--lintian when lintian is installed,
#            --keep-build, DEB_BUILD_OPTIONS nocheck: no unit tests, to keep
#            this suite's time; the vm suite builds with them) on the
#            throwaway git copy of the work tree ($T/src):
#            petricore_<version>_<arch>.deb and dh's build tree kept; build-deb
#            refuses a tree whose debian/changelog is not at meson.build's
#            version, one with a top-level debian/, and a --keep-build
#            directory that is neither empty nor a build tree.
#   fields   Version is meson.build's; Depends names the package of every
#            library the packaged binary links (readelf's NEEDED, looked up
#            with dpkg -S) and the sysusers helper; Recommends names, for each
#            library the source dlopen()s (SharedLibrary so(...) in src/), the
#            package that has it on this host.
#   contents dpkg-deb -c holds the binary, the MailProg wrapper, both units,
#            the config, the sysusers.d file, every man page of man/, the
#            examples (the Epilog clean-up executable) and the copyright; conffiles lists the config; the
#            packaged units are packaging/systemd's; lintian reports no error
#            (its findings are printed as comments).
#   install  on this host, as root, when petricore is not installed and
#            /etc/petricore does not exist: apt-get install of the .deb
#            (dependencies from the host, no Recommends); the user petricore
#            is a system user with the unit's home and no login; the installed
#            petricore --version runs; dpkg lists the config as a conffile;
#            systemd-analyze verifies the installed units; they are disabled
#            (installed, not enabled). Then remove keeps the (edited) conffile,
#            purge removes it and the cache directory and leaves the user (as
#            Debian leaves system users); the test then deletes the user it
#            made. The host is left as it was, also when a check fails (the
#            EXIT trap purges). While installed, a petricore started on this
#            host without --config reads the packaged example, whose settings
#            are the defaults (checked in the config part).
# shellcheck disable=SC2154 # src, pkg, config, version, T: set by packaging_test.sh

# deb_field DEB FIELD: one control field of a .deb, on one line.
deb_field() { dpkg-deb -f "$1" "$2" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//'; }

# relation_names FIELD_TEXT: the package names of a Depends-like field, one a line.
relation_names() { sed -e 's/[,|]/\n/g' <<<"$1" | sed -e 's/(.*)//' -e 's/\[.*\]//' -e 's/^ *//' -e 's/ *$//' | sed '/^$/d'; }

# package_of SONAME: the package that has SONAME on this host, without its
# architecture ("" when none has it).
package_of() {
  local multiarch
  multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
  dpkg-query -S "*/$multiarch/$1" 2>/dev/null | head -1 | sed 's/[:,].*//'
}

# The host install's undo, run by the EXIT trap (cleanup_host) and at the end.
deb_host_undo() {
  if dpkg-query -W -f='${Status}' petricore 2>/dev/null | grep -q -v 'not-installed'; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=600 petricore >>"$T/apt.log" 2>&1
  fi
  if [ -z "$deb_user_before" ] && getent passwd petricore >/dev/null; then userdel petricore 2>/dev/null; fi
  if [ -z "$deb_group_before" ] && getent group petricore >/dev/null; then groupdel petricore 2>/dev/null; fi
  cleanup_host=:
}

deb_part() {
  local out=$T/deb arch deb rc
  arch=$(dpkg-architecture -qDEB_HOST_ARCH)
  deb=$out/petricore_${version}_$arch.deb

  # Refusals first (cheap): a changelog at another version, a top-level debian/.
  mkdir -p "$T/bad-version/packaging/debian"
  cp "$T/src/meson.build" "$T/bad-version/"
  sed "1s/($version)/($version.1)/" "$T/src/packaging/debian/changelog" >"$T/bad-version/packaging/debian/changelog"
  cp "$T/src/packaging/debian/control" "$T/bad-version/packaging/debian/"
  "$T/src/packaging/build-deb" "$T/bad-version" "$T/bad-out" >/dev/null 2>"$T/err"
  rc=$?
  if [ "$rc" = 2 ] && grep -q "changelog is at $version.1, meson.build at $version" "$T/err"; then
    ok "build-deb refuses a changelog at another version: exit 2, $(head -1 "$T/err")"
  else
    not_ok "build-deb with a changelog at $version.1 (exit $rc, want 2: $(head -1 "$T/err"))"
  fi
  mkdir "$T/bad-version/debian"
  "$T/src/packaging/build-deb" "$T/bad-version" "$T/bad-out" >/dev/null 2>"$T/err"
  rc=$?
  check "build-deb refuses a tree with a top-level debian/ (exit $rc: $(head -1 "$T/err"))" \
    test "$rc" = 2 -a "$(grep -c 'debian exists' "$T/err")" = 1 -a ! -e "$T/bad-out"

  mkdir -p "$T/not-a-build-tree" && touch "$T/not-a-build-tree/keep-me"
  "$T/src/packaging/build-deb" --keep-build "$T/not-a-build-tree" "$T/src" "$T/bad-out" >/dev/null 2>"$T/err"
  rc=$?
  check "build-deb --keep-build refuses a non-empty directory that is no build tree (exit $rc: $(head -1 "$T/err"))" \
    test "$rc" = 2 -a -f "$T/not-a-build-tree/keep-me" -a ! -e "$T/bad-out/build.log"

  # nocheck: this suite builds the package without the unit tests, to keep
  # its time (the host's `unit` suite runs them, and the vm suite builds the
  # .deb with them, dh_auto_test running `unit`, on Debian 13).
  local deb_started
  deb_started=$(date +%s)
  local lintian_opt=--lintian
  command -v lintian >/dev/null || lintian_opt=
  if DEB_BUILD_OPTIONS="parallel=${PETRICORE_RPM_JOBS:-2} nocheck" \
    "$T/src/packaging/build-deb" $lintian_opt --keep-build "$T/deb-obj" "$T/src" "$out" >"$T/build-deb.out" 2>&1; then
    ok "build-deb built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) in $(($(date +%s) - deb_started)) s"
  else
    local log=$out/build.log
    if [ -n "${PETRICORE_ARTIFACTS:-}" ] && [ -f "$log" ] && mkdir -p "$PETRICORE_ARTIFACTS"; then
      cp "$log" "$PETRICORE_ARTIFACTS/build-deb.log" && log=$PETRICORE_ARTIFACTS/build-deb.log
    fi
    sed 's/^/# /' "$T/build-deb.out" | tail -20
    bail "packaging/build-deb failed (log: $log)"
  fi
  [ -f "$deb" ] || bail "build-deb made no $deb: $(ls "$out")"
  check "... with nothing left in the source copy (no debian/, no build directory)" \
    test -z "$(git -C "$T/src" status --porcelain --ignored)"
  # shellcheck disable=SC2016 # expanded by check's eval
  check "... configured -Dtests=false under nocheck, no unit tests run" \
    eval 'grep -q -- "-Dtests=false" "$out/build.log" && ! grep -q "meson test" "$out/build.log"'
  check "--keep-build kept dh's build tree (meson-info/, the built petricore, the unit tests not built)" \
    test -d "$T/deb-obj/meson-info" -a -x "$T/deb-obj/src/petricore" -a ! -e "$T/deb-obj/test/unit/unit_tests"

  # ------------------------------------------------ fields
  check "the package's Version ($(deb_field "$deb" Version)) is meson.build's ($version)" \
    test "$(deb_field "$deb" Version)" = "$version"
  check "... Package petricore, Architecture $arch" \
    test "$(deb_field "$deb" Package) $(deb_field "$deb" Architecture)" = "petricore $arch"
  local depends recommends needed lib p absent=
  depends=$(deb_field "$deb" Depends)
  recommends=$(deb_field "$deb" Recommends)
  echo "# Depends: $depends"
  echo "# Recommends: $recommends"
  echo "# Suggests: $(deb_field "$deb" Suggests)"
  mkdir -p "$T/deb-root" "$T/deb-control"
  dpkg-deb -x "$deb" "$T/deb-root" || bail "dpkg-deb -x $deb"
  dpkg-deb -e "$deb" "$T/deb-control" || bail "dpkg-deb -e $deb"
  needed=$(readelf -d "$T/deb-root/usr/bin/petricore" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  [ -n "$needed" ] || bail "readelf found no NEEDED libraries in the packaged binary"
  for lib in $needed; do
    p=$(package_of "$lib")
    relation_names "$depends" | grep -q -x "$p" || absent="$absent $lib($p)"
  done
  check "Depends (shlibs) names the package of each of the $(wc -w <<<"$needed") linked libraries${absent:+ (missing:$absent)}" \
    test -z "$absent"
  check "... and the sysusers helper (systemd | systemd-sysusers ...)" \
    grep -q 'systemd | systemd-standalone-sysusers | systemd-sysusers' <<<"$depends"
  # Each SharedLibrary so(...) of src/ names the sonames it tries, in order.
  local site sonames soname found checked=0 missing=
  while IFS= read -r site; do
    sonames=$(grep -o 'lib[A-Za-z0-9_.+-]*\.so\.[0-9]*' <<<"$site")
    found=
    for soname in $sonames; do
      p=$(package_of "$soname")
      if [ -n "$p" ]; then
        found=$p
        break
      fi
    done
    checked=$((checked + 1))
    if [ -z "$found" ]; then
      missing="$missing $(tr '\n' '/' <<<"$sonames")(not on this host)"
    elif ! relation_names "$recommends" | grep -q -x "$found"; then
      missing="$missing $soname($found)"
    fi
  done < <(grep -rhE 'SharedLibrary so\(' "$src/src" --include=*.cpp)
  check "Recommends names the package of each of the $checked dlopen()ed libraries${missing:+ (missing:$missing)}" \
    test "$checked" -ge 4 -a -z "$missing"

  # ------------------------------------------------ contents
  dpkg-deb -c "$deb" | awk '{print $6}' | sed -e 's|^\./|/|' -e 's|/$||' >"$T/deb.files"
  local unitdir
  unitdir=$(sed -n 's|^\(.*/systemd/system\)/petricore-collect\.service$|\1|p' "$T/deb.files")
  check "the package holds the units in a systemd unit directory (${unitdir:-none})" \
    grep -q -x -e /usr/lib/systemd/system -e /lib/systemd/system <<<"${unitdir:-none}"
  for path in /usr/bin/petricore /usr/libexec/petricore/petricore-mailprog \
    "$unitdir/petricore-collect.service" "$unitdir/petricore-serve.service" \
    /etc/petricore/petricore.toml /usr/lib/sysusers.d/petricore.conf /usr/share/doc/petricore/copyright \
    /usr/share/doc/petricore/grafana/petricore-job.json /usr/share/doc/petricore/prometheus/prometheus-pull.yml \
    /usr/share/doc/petricore/prometheus/prometheus-pushgateway.yml /usr/share/doc/petricore/prometheus/petricore-rules.yml \
    /usr/share/doc/petricore/slurm/epilog-notes.md /usr/share/doc/petricore/slurm/epilog-cgroup-cleanup.sh \
    /usr/share/doc/petricore/README.md /usr/share/doc/petricore/petricore.toml; do
    # dh_compress gzips documentation over 4 KiB.
    check "the package holds $path" grep -q -x -e "$path" -e "$path.gz" "$T/deb.files"
  done
  local man_pages packaged_man
  man_pages=$(for f in "$src"/man/*.[1-8]; do basename "$f"; done | sort)
  packaged_man=$(sed -n 's|^/usr/share/man/man[1-8]/\(petricore.*\.[1-8]\)\.gz$|\1|p' "$T/deb.files" | sort)
  check "the package holds every man page of man/ ($(wc -w <<<"$man_pages")), gzipped" \
    test -n "$man_pages" -a "$man_pages" = "$packaged_man"
  check "conffiles lists /etc/petricore/petricore.toml (only)" \
    test "$(cat "$T/deb-control/conffiles" 2>/dev/null)" = /etc/petricore/petricore.toml
  check "the packaged config is the example" cmp -s "$T/deb-root/etc/petricore/petricore.toml" "$config"
  # shellcheck disable=SC2016 # expanded by check's eval
  check "the packaged Epilog clean-up is packaging's, executable (the Epilog calls it by its path)" \
    eval 'cmp -s "$T/deb-root/usr/share/doc/petricore/slurm/epilog-cgroup-cleanup.sh" "$pkg/slurm/epilog-cgroup-cleanup.sh" &&
      test -x "$T/deb-root/usr/share/doc/petricore/slurm/epilog-cgroup-cleanup.sh"'
  check "the packaged MailProg wrapper is packaging's" \
    cmp -s "$T/deb-root/usr/libexec/petricore/petricore-mailprog" "$pkg/petricore-mailprog"
  check "... and executable" test -x "$T/deb-root/usr/libexec/petricore/petricore-mailprog"
  for unit in petricore-collect.service petricore-serve.service; do
    check "the packaged $unit is packaging/systemd/$unit" cmp -s "$T/deb-root$unitdir/$unit" "$pkg/systemd/$unit"
  done
  check "the sysusers.d file makes the system user petricore with home /var/cache/petricore and no login" \
    grep -q -x 'u petricore - "petricore web app" /var/cache/petricore /usr/sbin/nologin' \
    "$T/deb-root/usr/lib/sysusers.d/petricore.conf"
  check "postinst runs systemd-sysusers petricore.conf" grep -q 'systemd-sysusers .*petricore.conf' "$T/deb-control/postinst"
  check "the packaged petricore runs: $("$T/deb-root/usr/bin/petricore" --version 2>&1)" \
    quiet "$T/deb-root/usr/bin/petricore" --version

  # lintian ran in build-deb; its findings, all of them, as comments (the
  # explanations, N: lines, are in lintian.txt).
  if [ -z "$lintian_opt" ]; then
    echo "# lintian is not installed: the package is not checked by lintian"
  elif [ -f "$out/lintian.txt" ]; then
    grep -v '^N:' "$out/lintian.txt" | sed 's/^/# lintian: /'
    check "lintian reports no error ($(grep -c '^E: ' "$out/lintian.txt") errors, $(grep -c '^W: ' "$out/lintian.txt") warnings)" \
      test "$(grep -c '^E: ' "$out/lintian.txt")" = 0
  else
    not_ok "build-deb --lintian wrote no lintian.txt"
  fi

  # ------------------------------------------------ install on this host
  if [ "$(id -u)" != 0 ]; then
    echo "# not root: the package is not installed on this host"
    return
  fi
  if dpkg-query -W -f='${Status}' petricore 2>/dev/null | grep -q -v 'not-installed'; then
    echo "# petricore is installed on this host already ($(dpkg-query -W -f='${Version} ${Status}' petricore)): not touched, install not tested"
    return
  fi
  if [ -e /etc/petricore ]; then
    echo "# /etc/petricore exists on this host: not touched, install not tested"
    return
  fi
  # One install at a time on this host (two runs of this suite at once).
  exec 9>/run/lock/petricore-packaging-test.lock
  flock -w 900 9 || bail "waiting for /run/lock/petricore-packaging-test.lock"
  deb_user_before=$(getent passwd petricore)
  deb_group_before=$(getent group petricore)
  # shellcheck disable=SC2034 # run by packaging_test.sh's EXIT trap
  cleanup_host=deb_host_undo
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 \
    "$deb" >"$T/apt.log" 2>&1; then
    sed 's/^/# /' "$T/apt.log" | tail -15
    bail "apt-get install $deb failed"
  fi
  check "apt-get installed it: $(dpkg-query -W -f='${Package} ${Version} ${Status}' petricore)" \
    test "$(dpkg-query -W -f='${Status}' petricore)" = "install ok installed"

  local entry uid shell home gid
  entry=$(getent passwd petricore)
  IFS=: read -r _ _ uid gid _ home shell <<<"$entry"
  check "the user petricore exists: $entry" test -n "$entry"
  check "... a system user (uid $uid < 1000) with group petricore" \
    test -n "$uid" -a "${uid:-1000}" -lt 1000 -a "$(getent group "${gid:-x}" | cut -d: -f1)" = petricore
  check "... home /var/cache/petricore, shell /usr/sbin/nologin" \
    test "$home:$shell" = /var/cache/petricore:/usr/sbin/nologin
  check "/usr/bin/petricore --version from the installed package: $(/usr/bin/petricore --version 2>&1)" \
    grep -q -w -F "$version" <<<"$(/usr/bin/petricore --version 2>&1)"
  check "dpkg lists /etc/petricore/petricore.toml as a conffile of petricore" \
    grep -q '^ /etc/petricore/petricore.toml [0-9a-f]\{32\}$' <<<"$(dpkg-query -W -f='${Conffiles}\n' petricore)"
  if [ -n "$have_systemd_analyze" ]; then
    if verify_units "$unitdir/petricore-collect.service" "$unitdir/petricore-serve.service"; then
      ok "systemd-analyze verify accepts the installed units (ExecStart=/usr/bin/petricore)"
    else
      not_ok "systemd-analyze verify of the installed units: $(head -3 "$T/verify.out")"
    fi
  fi
  local state
  state=$(systemctl --root=/ is-enabled petricore-collect.service petricore-serve.service 2>&1 | paste -s -d ' ')
  check "the units are installed, not enabled (is-enabled: $state)" test "$state" = "disabled disabled"

  # Remove keeps an edited conffile; purge takes it, and the cache.
  echo '# edited by the packaging test' >>/etc/petricore/petricore.toml
  mkdir -p /var/cache/petricore/fontconfig
  chown -R petricore:petricore /var/cache/petricore
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -q -o DPkg::Lock::Timeout=600 petricore >>"$T/apt.log" 2>&1
  check "apt-get remove leaves the config files: $(dpkg-query -W -f='${Status}' petricore 2>&1)" \
    test "$(dpkg-query -W -f='${Status}' petricore 2>&1)" = "deinstall ok config-files"
  check "... the edited /etc/petricore/petricore.toml is kept" \
    grep -q -x '# edited by the packaging test' /etc/petricore/petricore.toml
  check "... /usr/bin/petricore is gone" test ! -e /usr/bin/petricore
  DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=600 petricore >>"$T/apt.log" 2>&1
  check "apt-get purge removes the package: $(dpkg-query -W -f='${Status}' petricore 2>&1 | head -1)" \
    quiet sh -c "! dpkg-query -W -f='\${Status}' petricore 2>/dev/null | grep -q -v not-installed"
  check "... and /etc/petricore and /var/cache/petricore" test ! -e /etc/petricore -a ! -e /var/cache/petricore
  check "... and keeps the system user petricore (Debian does not delete system users)" \
    quiet getent passwd petricore
  check "... and no unit state of deb-systemd-helper" \
    test -z "$(find /var/lib/systemd/deb-systemd-helper-enabled -name '*petricore*' 2>/dev/null)"
  deb_host_undo
  check "the host is as before: no package, no user petricore unless it had one" \
    test -z "$(dpkg-query -W -f='${Status}' petricore 2>/dev/null | grep -v not-installed)" -a \
    "$(getent passwd petricore)" = "$deb_user_before"
}
