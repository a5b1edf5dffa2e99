# shellcheck shell=bash
# Turns an unpacked trixie root (lib/vm_root.sh) into the test VM: petricore's
# .deb built in it with trixie's toolchain (packaging/build-deb, cached by the
# source tree's hash), installed with dpkg as a site installs it, a one-node
# Slurm 24.11 on cgroup v2 configured, an ext4 image made, booted under qemu
# TCG, and the results read back from the image.
#
#   vm_source_key SRC                 hash of the contents of the files the build reads
#   vm_build_petricore ROOT SRC       prints the cached build (a directory: the .deb,
#                                     collect_bench, unit.txt, build.log), building it when missing
#   install_petricore_into_root ROOT BUILD_DIR
#   vm_configure_root ROOT GUEST_DIR  Slurm, MariaDB, munge, Prometheus, the guest test unit
#   vm_make_image ROOT IMAGE
#   vm_boot IMAGE ROOT DIR SECONDS    qemu under timeout; console.log, progress.log in DIR
#   vm_fetch IMAGE GUEST_PATH DIR     copies a directory out of the (powered off) image
#
# Needs lib/vm_root.sh sourced first (vm_chroot, VM_CACHE).

VM_HOSTNAME=vmnode
VM_ADDRESS=10.99.0.1
VM_MEMORY_MB=${VM_MEMORY_MB:-2560}
VM_JOB_USER=alice
VM_JOB_UID=1001

# Never the host's own /: every function that writes into ROOT checks it.
_vm_is_root_dir() {  # DIR
  [ -n "$1" ] && [ "$(cd "$1" 2>/dev/null && pwd -P)" != / ] && [ -f "$1/etc/debian_version" ] ||
    { echo "not a VM root: '$1'" >&2; return 1; }
}

vm_image_unavailable() {
  local t
  for t in qemu-system-x86_64 mkfs.ext4 debugfs timeout; do
    command -v "$t" >/dev/null 2>&1 || { echo "$t is not installed (scripts/install-deps)"; return; }
  done
  mkfs.ext4 2>&1 | grep -q -- '-d ' || echo "mkfs.ext4 has no -d (e2fsprogs >= 1.43 needed)"
}

# The source files, NUL-separated: what git tracks plus new files it does not
# ignore (or, outside git, every file but the build directories). The guest's
# own scripts (test/vm/guest) are not part of petricore's build.
_vm_source_files() {  # run in SRC
  if git rev-parse --show-toplevel >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard
  else
    find . -type f ! -path './build*' ! -path './.git/*' -printf '%P\0' | sort -z
  fi | grep -zv '^test/vm/guest/'
}
# The build's key: a hash of the contents of the files the build reads, so
# an edit not yet committed changes it, of the recipe (vm_build_petricore)
# and of the root's key (the toolchain). The files: all the source files but
# the suite's own (test/vm: meson only needs vm_test.sh to exist), scripts/
# (no meson.build or packaging/debian file names it) and the *.md. Two of
# those are in the package (README.md and packaging/slurm/epilog-notes.md,
# as documentation) and nothing in the VM reads them, so a cached .deb with
# an older copy tests the same; the rest are read by no part of the build.
vm_source_key() {  # SRC
  {
    (cd "$1" && _vm_source_files | grep -zv -e '^test/vm/' -e '^scripts/' -e '\.md$' | xargs -0 sha256sum 2>/dev/null)
    declare -f vm_build_petricore
    vm_root_key
  } | sha256sum | cut -c1-16
}

# Builds petricore's .deb in the chroot, the Debian way: packaging/build-deb
# (dpkg-buildpackage; DEB_BUILD_OPTIONS "parallel=2 noautodbgsym": two
# compile jobs, no -dbgsym package, which nothing here uses; no nocheck, so
# the unit suite is built and run by dh_auto_test; ccache under
# VM_CACHE/ccache-trixie, whose hits for the build are in build.log). Caches, in
# VM_CACHE/petricore-trixie-<key>/: petricore_<version>_<arch>.deb, the unit
# suite's testlog.txt as unit.txt, test/bench's collect_bench from the kept
# build tree (for the guest; not part of a site install), build.log (this
# function's) and build-deb.log (dpkg-buildpackage's). Prints that
# directory. On a failure: status 1, the log's tail on stderr.
vm_build_petricore() {  # ROOT SRC
  local root=$1 src=$2 key dir tmp
  _vm_is_root_dir "$root" || return 1
  key=$(vm_source_key "$src")
  dir=$VM_CACHE/petricore-trixie-$key
  [ -d "$dir" ] && compgen -G "$dir/petricore_*.deb" >/dev/null && { echo "$dir"; return 0; }
  rm -rf "$root/usr/src/petricore"
  mkdir -p "$VM_CACHE/ccache-trixie" "$root/usr/src/petricore" "$root/var/cache/ccache" || return 1
  (cd "$src" && _vm_source_files | tar --null -T - -cf -) |
    tar -C "$root/usr/src/petricore" -xf - || return 1
  tmp=$(mktemp -d "$VM_CACHE/.petricore-build.XXXXXX") || return 1
  local log=$tmp/build.log
  # shellcheck disable=SC2016 # expanded in the chroot
  if ! VM_CHROOT_BINDS="$VM_CACHE/ccache-trixie:/var/cache/ccache" vm_chroot "$root" \
    env CCACHE_DIR=/var/cache/ccache DEB_BUILD_OPTIONS="parallel=2 noautodbgsym" PETRICORE_DEB_STAGE=/var/tmp/pc-deb sh -ec '
      echo "# $(g++ --version | head -n 1); Boost $(grep "define BOOST_LIB_VERSION" /usr/include/boost/version.hpp | cut -d\" -f2);" \
        "CLI11 $(pkg-config --modversion CLI11); Catch2 $(dpkg-query -W -f="\${Version}" catch2);" \
        "debhelper $(dpkg-query -W -f="\${Version}" debhelper)"
      ccache -z >/dev/null
      t0=$(date +%s)
      /usr/src/petricore/packaging/build-deb --keep-build /var/tmp/pc-obj /usr/src/petricore /var/tmp/pc-out ||
        { cp /var/tmp/pc-out/build.log /var/tmp/pc-build-deb.log 2>/dev/null; exit 1; }
      echo "# dpkg-buildpackage took $(($(date +%s) - t0)) s"
      echo "# ccache: $(ccache -s | grep -E "^ *(Cacheable calls|Hits|Misses):" | head -n 3 | tr -s " \n" " ")"' >"$log" 2>&1; then
    echo "petricore's .deb did not build or its unit suite failed in the trixie chroot; last lines of the build log:" >&2
    [ -f "$root/var/tmp/pc-build-deb.log" ] && grep -v '^\[[0-9]*/[0-9]*\]' "$root/var/tmp/pc-build-deb.log" | tail -n 40 >&2
    tail -n 10 "$log" >&2
    cp "$log" "$VM_CACHE/petricore-trixie-$key.failed.log" 2>/dev/null
    rm -rf "$tmp"
    return 1
  fi
  # dpkg-buildpackage's log: the ninja lines cut (they are in ccache's objects).
  grep -v '^\[[0-9]*/[0-9]*\] ' "$root/var/tmp/pc-out/build.log" >"$tmp/build-deb.log"
  cp "$root"/var/tmp/pc-out/petricore_*.deb "$tmp/" &&
    cp "$root/var/tmp/pc-obj/meson-logs/testlog.txt" "$tmp/unit.txt" &&
    install -m 755 "$root/var/tmp/pc-obj/test/bench/collect_bench" "$tmp/collect_bench" || { rm -rf "$tmp"; return 1; }
  chmod 755 "$tmp"
  rm -rf "$dir" && mv "$tmp" "$dir" || { rm -rf "$tmp"; return 1; }
  rm -rf "$root/var/tmp/pc-obj" "$root/var/tmp/pc-out" "$root/var/tmp/pc-deb" "$root/usr/src/petricore"
  # Builds of other trees are stale now (the ccache keeps their objects).
  find "$VM_CACHE" -maxdepth 1 -name 'petricore-trixie-*' ! -name "petricore-trixie-$key" -exec rm -rf {} +
  echo "$dir"
}

# How petricore gets onto the node: as a site installs it, the .deb with
# dpkg -i (its dependencies are in the root already: the build installed
# them; no network), which makes the petricore user (sysusers) and installs
# the config /etc/petricore/petricore.toml as a conffile and the units, not
# enabled. The collector runs with that conffile as shipped: a site would
# edit it, and the suite may overwrite it after the install, but it needs
# none of its settings changed (the guest's `petricore report` has its own
# --config). Then, as the site would on a compute node, `systemctl enable
# petricore-collect`. collect_bench goes to /usr/local/libexec/petricore-test
# (the guest's benchmark; not part of a site install).
install_petricore_into_root() {  # ROOT BUILD_DIR
  local root=$1 build=$2 deb log
  _vm_is_root_dir "$root" || return 1
  deb=$(compgen -G "$build/petricore_*.deb" | head -n 1)
  [ -n "$deb" ] || { echo "no petricore_*.deb in $build" >&2; return 1; }
  cp "$deb" "$root/var/tmp/" || return 1
  # No maintainer script may start a service in the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
  log=$root/var/tmp/dpkg-i.log
  if ! vm_chroot "$root" dpkg -i "/var/tmp/$(basename "$deb")" >"$log" 2>&1; then
    echo "dpkg -i $(basename "$deb") in the root failed:" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
  rm -f "$log" "$root/usr/sbin/policy-rc.d" "$root/var/tmp/$(basename "$deb")"
  [ -f "$root/etc/petricore/petricore.toml" ] || { echo "the package installed no /etc/petricore/petricore.toml" >&2; return 1; }
  chroot "$root" systemctl enable petricore-collect.service >/dev/null 2>&1 ||
    { echo "systemctl enable petricore-collect.service failed in the root" >&2; return 1; }
  install -D -m 755 "$build/collect_bench" "$root/usr/local/libexec/petricore-test/collect_bench"
}

_vm_enable() {  # ROOT UNIT [TARGET]
  local wants=$1/etc/systemd/system/${3:-multi-user.target}.wants unit
  mkdir -p "$wants"
  unit=$(find "$1/usr/lib/systemd/system" "$1/lib/systemd/system" "$1/etc/systemd/system" -maxdepth 1 -name "$2" 2>/dev/null | head -n 1)
  [ -n "$unit" ] || { echo "no unit $2 in the root" >&2; return 1; }
  ln -sf "/${unit#"$1"/}" "$wants/$2"
}

# Slurm (slurmctld, slurmd, slurmdbd on MariaDB, munge) with the cgroup v2
# plugins, Prometheus scraping petricore, the job user, and the guest test
# unit that runs GUEST_DIR/run-jobs.sh and powers the VM off.
vm_configure_root() {  # ROOT GUEST_DIR
  local r=$1 guest=$2 mem
  _vm_is_root_dir "$r" || return 1
  echo "$VM_HOSTNAME" >"$r/etc/hostname"
  printf '127.0.0.1 localhost\n%s %s\n' "$VM_ADDRESS" "$VM_HOSTNAME" >"$r/etc/hosts"
  # An address that is not loopback: with only lo, getaddrinfo's
  # AI_ADDRCONFIG finds no IPv4 and slurmd cannot bind its port. A dummy
  # interface gives one without any network outside the VM (-nic none).
  cat >"$r/etc/systemd/system/petricore-vm-net.service" <<EOF
[Unit]
Description=dummy0 with $VM_ADDRESS for the node's name
DefaultDependencies=no
After=systemd-modules-load.service
Before=network.target network-online.target munge.service slurmctld.service slurmd.service slurmdbd.service
Wants=network.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/sbin/ip link add dummy0 type dummy
ExecStart=/usr/sbin/ip addr add $VM_ADDRESS/24 dev dummy0
ExecStart=/usr/sbin/ip link set dummy0 up

[Install]
WantedBy=multi-user.target
EOF
  printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$r/etc/fstab"
  : >"$r/etc/machine-id"  # a fresh id at first boot
  # ttyS0 is the console (kernel and systemd lines); no getty hangs it up.
  ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
  ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"
  # Nothing waits for a network this VM does not have.
  ln -sf /dev/null "$r/etc/systemd/system/systemd-networkd-wait-online.service"
  # No timer may spend the guest's (slow, emulated) CPU during the jobs.
  local t
  for t in apt-daily.timer apt-daily-upgrade.timer man-db.timer fstrim.timer e2scrub_all.timer dpkg-db-backup.timer; do
    ln -sf /dev/null "$r/etc/systemd/system/$t"
  done
  mkdir -p "$r/etc/systemd/system.conf.d"
  printf '[Manager]\nDefaultTimeoutStartSec=120s\nDefaultTimeoutStopSec=20s\n' >"$r/etc/systemd/system.conf.d/vm.conf"

  chroot "$r" id "$VM_JOB_USER" >/dev/null 2>&1 ||
    chroot "$r" useradd -m -u "$VM_JOB_UID" -s /bin/bash "$VM_JOB_USER" || return 1
  mkdir -p "$r/scratch" && chmod 1777 "$r/scratch"

  # munge: its own key for this image.
  chroot "$r" sh -c 'mungekey -c -f -k /etc/munge/munge.key && chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key' ||
    return 1

  mem=$((VM_MEMORY_MB - 700))  # what Slurm may hand out; the rest is the daemons'
  # Debian's units run slurmctld and slurmdbd as the slurm user, slurmd as root.
  mkdir -p "$r/etc/slurm" "$r/var/lib/slurm/slurmctld" "$r/var/lib/slurm/slurmd" "$r/var/log/slurm"
  cat >"$r/etc/slurm/slurm.conf" <<EOF
ClusterName=vmcluster
SlurmctldHost=$VM_HOSTNAME
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
JobAcctGatherType=jobacct_gather/cgroup
JobAcctGatherFrequency=task=2
PrologFlags=Contain
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$VM_HOSTNAME
AccountingStorageTRES=cpu,mem,node,billing
AccountingStoreFlags=job_script,job_env
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=5
MinJobAge=600
SlurmctldTimeout=60
SlurmdTimeout=120
MessageTimeout=60
Waittime=0
NodeName=$VM_HOSTNAME CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$VM_HOSTNAME Default=YES MaxTime=INFINITE State=UP
EOF
  cat >"$r/etc/slurm/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v2
ConstrainCores=yes
ConstrainRAMSpace=yes
ConstrainDevices=no
EOF
  # slurmdbd (user slurm) reaches MariaDB over TCP on 127.0.0.1 with a
  # password made for this image, as a site with a separate DB host would.
  local pw
  pw=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  cat >"$r/etc/slurm/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=$VM_HOSTNAME
SlurmUser=slurm
DebugLevel=info
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurmdbd/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3306
StorageUser=slurm
StoragePass=$pw
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$r/etc/slurm/slurmdbd.conf"
  chroot "$r" chown slurm:slurm /etc/slurm/slurmdbd.conf /var/lib/slurm/slurmctld /var/log/slurm || return 1
  mkdir -p "$r/etc/petricore-vm"
  (umask 077 && printf "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '%s';\nGRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';\n" \
    "$pw" >"$r/etc/petricore-vm/slurm-db.sql")
  cat >"$r/etc/systemd/system/petricore-vm-db.service" <<EOF
[Unit]
Description=MariaDB user for slurmdbd
After=mariadb.service
Requires=mariadb.service
Before=slurmdbd.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c '/usr/bin/mariadb </etc/petricore-vm/slurm-db.sql'

[Install]
WantedBy=multi-user.target
EOF
  local d
  for d in slurmdbd slurmctld slurmd; do mkdir -p "$r/etc/systemd/system/$d.service.d"; done
  # Restart=on-failure: slurmdbd 24.11.5 was seen to die at its first start in
  # this VM with "mysql_query failed: 5027 Number of columns in result (=1)
  # set execeeds maxmimum allowed number of columns (=0)" in
  # _check_mysql_concat_is_sane (trixie's MariaDB 11.8), and to start on a
  # later try; the guest records how many restarts it took.
  printf '[Unit]\nAfter=petricore-vm-db.service munge.service\nWants=petricore-vm-db.service munge.service\nStartLimitIntervalSec=0\n[Service]\nRestart=on-failure\nRestartSec=3\n' \
    >"$r/etc/systemd/system/slurmdbd.service.d/vm.conf"
  printf '[Unit]\nAfter=slurmdbd.service munge.service\nWants=slurmdbd.service\n' \
    >"$r/etc/systemd/system/slurmctld.service.d/vm.conf"
  printf '[Unit]\nAfter=slurmctld.service munge.service\n' >"$r/etc/systemd/system/slurmd.service.d/vm.conf"
  # MariaDB small enough for the VM.
  printf '[mysqld]\ninnodb_buffer_pool_size=64M\nperformance_schema=OFF\nskip-name-resolve\n' \
    >"$r/etc/mysql/mariadb.conf.d/90-vm.cnf"

  # Prometheus 2.53 scrapes petricore's /metrics (:9966) every 5 s.
  cat >"$r/etc/prometheus/prometheus.yml" <<EOF
global:
  scrape_interval: 5s
  evaluation_interval: 5s
scrape_configs:
  - job_name: petricore
    static_configs:
      - targets: ['localhost:9966']
EOF
  printf 'ARGS="--storage.tsdb.retention.time=1d"\n' >"$r/etc/default/prometheus"

  # The test: run-jobs.sh as a unit once everything is up, then poweroff
  # (also when it fails: ExecStopPost).
  install -D -m 755 "$guest/run-jobs.sh" "$r/usr/local/lib/petricore-vm/run-jobs.sh" || return 1
  cat >"$r/etc/systemd/system/petricore-vm-test.service" <<EOF
[Unit]
Description=petricore VM test: real jobs, kernel counters, sacct, petricore report
After=multi-user.target slurmd.service slurmctld.service slurmdbd.service prometheus.service petricore-collect.service
Wants=slurmd.service slurmctld.service slurmdbd.service prometheus.service petricore-collect.service

[Service]
Type=oneshot
ExecStart=/usr/local/lib/petricore-vm/run-jobs.sh /var/lib/petricore-vm/out
ExecStopPost=/bin/systemctl poweroff --no-block
StandardOutput=journal+console
TimeoutStartSec=1500

[Install]
WantedBy=multi-user.target
EOF
  local u
  for u in petricore-vm-net.service munge.service mariadb.service petricore-vm-db.service slurmdbd.service slurmctld.service slurmd.service prometheus.service \
    petricore-vm-test.service; do
    _vm_enable "$r" "$u" || return 1
  done
}

vm_make_image() {  # ROOT IMAGE
  rm -f "$2"
  mkfs.ext4 -q -F -L vmroot -d "$1" "$2" 6G >"$2.mkfs.log" 2>&1 || { cat "$2.mkfs.log" >&2; return 1; }
}

# Boots IMAGE with ROOT's kernel and initrd under TCG; returns qemu's status
# (124 when `timeout` had to stop it). console.log: ttyS0 (kernel, systemd,
# the test unit's output); progress.log: ttyS1 (the guest test's phases).
VM_QEMU_PID=''
vm_boot() {  # IMAGE ROOT DIR SECONDS
  local img=$1 r=$2 dir=$3 secs=$4 kernel initrd rc
  kernel=$(find "$r/boot" -maxdepth 1 -name 'vmlinuz-*' | sort | tail -n 1)
  initrd=$(find "$r/boot" -maxdepth 1 -name 'initrd.img-*' | sort | tail -n 1)
  [ -n "$kernel" ] && [ -n "$initrd" ] || { echo "no kernel or initrd in $r/boot" >&2; return 1; }
  timeout -k 10 "$secs" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2,sockets=1,cores=2,threads=1 -m "$VM_MEMORY_MB" \
    -kernel "$kernel" -initrd "$initrd" \
    -append "root=/dev/vda rw console=ttyS0 systemd.unified_cgroup_hierarchy=1 quiet systemd.show_status=1 panic=-1" \
    -drive "file=$img,format=raw,if=virtio" -nic none -display none -no-reboot \
    -serial "file:$dir/console.log" -serial "file:$dir/progress.log" -monitor none </dev/null &
  VM_QEMU_PID=$!
  wait "$VM_QEMU_PID"
  rc=$?
  VM_QEMU_PID=''
  return $rc
}
# For an EXIT trap: no qemu outlives the suite.
vm_kill_qemu() {
  [ -n "$VM_QEMU_PID" ] || return 0
  kill -TERM "$VM_QEMU_PID" 2>/dev/null
  local _
  for _ in $(seq 1 50); do kill -0 "$VM_QEMU_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$VM_QEMU_PID" 2>/dev/null
  wait "$VM_QEMU_PID" 2>/dev/null
  VM_QEMU_PID=''
}

vm_fetch() {  # IMAGE GUEST_DIR HOST_DIR: the image must not be running
  mkdir -p "$3" && debugfs -R "rdump $2 $3" "$1" >/dev/null 2>"$3/debugfs.err"
}
