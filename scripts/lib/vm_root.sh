# shellcheck shell=bash
# The Debian 13 (trixie) root of the cgroup v2 test VM (test/vm/), built with
# debootstrap and cached, and the chroot helpers that work in it. What was
# measured on these machines: ../shared/reference/realstack/vm-cgroup-v2.md.
#
#   source scripts/lib/vm_root.sh
#   why=$(vm_root_unavailable) && [ -z "$why" ] || skip "$why"
#   trap vm_chroot_umount_all EXIT          # never leaves a mount behind
#   vm_root_cached_tar                      # prints the cache file (built when missing)
#   vm_root_unpack TAR DIR                  # a fresh copy of the root to change
#   vm_chroot DIR CMD...                    # /proc, /sys, /dev mounted, then undone
#
# The cache lives in VM_CACHE (default /var/cache/petricore-test): the root
# as vm-root-<key>.tar.zst, where key is a hash of the package lists below,
# vm_root_build and the archive URL, so a change to any rebuilds it.

VM_CACHE=${VM_CACHE:-/var/cache/petricore-test}
VM_SUITE=trixie

# What the root holds: systemd as PID 1 and a kernel, the Slurm 24.11 node
# with accounting, Prometheus 2.53, the job tools, and what building
# petricore's .deb needs: dpkg-buildpackage and debhelper, and every
# Build-Depends of packaging/debian/control (the first of each alternative:
# trixie's names; catch2 and cmake, the <!nocheck> ones, for the unit
# suite), plus ccache.
VM_BOOT_PACKAGES=(systemd systemd-sysv linux-image-amd64 udev dbus iproute2 procps)
VM_PACKAGES=(
  # the node
  slurm-wlm slurmd slurmctld slurmdbd slurm-client munge mariadb-server mariadb-client
  prometheus stress python3 curl jq util-linux kmod
  # petricore's .deb (GCC 14, Boost 1.83, CLI11 2.4, Catch2 3.7, debhelper 13)
  build-essential dpkg-dev debhelper ccache
  meson ninja-build pkgconf g++ systemd-dev catch2 cmake
  libcli11-dev prometheus-cpp-dev libcurl4-openssl-dev
  libboost-dev libboost-json-dev libmariadb-dev libsqlite3-dev libldap-dev libcairo2-dev zlib1g-dev
  fonts-dejavu-core
)

# The archive the host's apt sources name (trixie comes from the same one).
vm_archive_url() {
  local url
  url=$(grep -rhoE '^(URIs:|deb) *(\[[^]]*\] *)?https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
    grep -oE 'https?://[^ ]+' | grep -v security | head -n 1)
  echo "${url:-http://deb.debian.org/debian}"
}

# Prints why the root cannot be built here, or nothing.
vm_root_unavailable() {
  [ "$(id -u)" = 0 ] || { echo "needs root (debootstrap, chroot, mounts)"; return; }
  local t
  for t in debootstrap chroot tar zstd mount umount; do
    command -v "$t" >/dev/null 2>&1 || { echo "$t is not installed (scripts/install-deps)"; return; }
  done
  if [ ! -f "$(vm_root_cache_file)" ]; then
    local url
    url=$(vm_archive_url)
    curl -sf --max-time 15 -o /dev/null "$url/dists/$VM_SUITE/Release" ||
      echo "the Debian archive $url/dists/$VM_SUITE/Release cannot be reached (and no cached root)"
  fi
}

# The key: the package lists, the code that builds the root and the archive
# (not the comments or the other helpers of this file).
vm_root_key() {
  { echo "$VM_SUITE ${VM_BOOT_PACKAGES[*]} / ${VM_PACKAGES[*]}"; declare -f vm_root_build; vm_archive_url; } |
    sha256sum | cut -c1-16
}
vm_root_cache_file() { echo "$VM_CACHE/vm-root-$(vm_root_key).tar.zst"; }

# ---- mounts: every one made is recorded, so one call undoes them all
VM_MOUNTS=()
_vm_mount() {  # mount ARGS... TARGET (the last argument is the mount point)
  mount "$@" || return 1
  VM_MOUNTS+=("${!#}")
}
vm_chroot_mount() {  # DIR
  local d=$1
  _vm_mount -t proc proc "$d/proc" || return 1
  _vm_mount -t sysfs sysfs "$d/sys" || return 1
  _vm_mount --bind /dev "$d/dev" || return 1
  _vm_mount -t devpts -o newinstance,ptmxmode=0666 devpts "$d/dev/pts" || return 1
  # VM_CHROOT_BINDS="HOSTDIR:DIR ...": more directories bound into the chroot.
  local b
  for b in ${VM_CHROOT_BINDS:-}; do
    mkdir -p "$d/${b#*:}" && _vm_mount --bind "${b%%:*}" "$d/${b#*:}" || return 1
  done
}
# Undoes the mounts in reverse order (lazily if one is busy); safe to call
# twice and from an EXIT trap.
vm_chroot_umount_all() {
  local i m
  for ((i = ${#VM_MOUNTS[@]} - 1; i >= 0; i--)); do
    m=${VM_MOUNTS[$i]}
    mountpoint -q "$m" 2>/dev/null && { umount "$m" 2>/dev/null || umount -l "$m"; }
  done
  VM_MOUNTS=()
}
# vm_chroot DIR CMD...: runs CMD in the chroot with /proc, /sys, /dev there.
vm_chroot() {
  local d=$1 rc
  shift
  vm_chroot_mount "$d" || { vm_chroot_umount_all; return 1; }
  LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$d" "$@"
  rc=$?
  vm_chroot_umount_all
  return $rc
}

# Builds the root into DIR (no cache): debootstrap, then the packages.
vm_root_build() {  # DIR
  local d=$1 url
  url=$(vm_archive_url)
  mkdir -p "$d" || return 1
  echo "# debootstrap $VM_SUITE from $url"
  debootstrap --variant=minbase --include="$(IFS=,; echo "${VM_BOOT_PACKAGES[*]}")" \
    "$VM_SUITE" "$d" "$url" >"$d.debootstrap.log" 2>&1 ||
    { tail -n 20 "$d.debootstrap.log" >&2; return 1; }
  # No package's maintainer script may start a service in the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$d/usr/sbin/policy-rc.d" && chmod 755 "$d/usr/sbin/policy-rc.d"
  echo "# apt-get install ${#VM_PACKAGES[@]} packages in the chroot"
  vm_chroot "$d" sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends ${VM_PACKAGES[*]}" \
    >"$d.apt.log" 2>&1 || { tail -n 20 "$d.apt.log" >&2; return 1; }
  vm_chroot "$d" apt-get clean >/dev/null 2>&1
  rm -rf "$d"/var/lib/apt/lists/* "$d.debootstrap.log" "$d.apt.log"
  # Packages' own keys and ids are made per image by the suite.
  rm -f "$d/usr/sbin/policy-rc.d"
}

# Prints the cached root's tar file, building and caching it first when
# there is none for this key.
vm_root_cached_tar() {
  local tar tmp
  tar=$(vm_root_cache_file)
  [ -f "$tar" ] && { echo "$tar"; return 0; }
  mkdir -p "$VM_CACHE" || return 1
  tmp=$(mktemp -d "$VM_CACHE/.root-build.XXXXXX") || return 1
  if ! vm_root_build "$tmp/root" >&2; then
    rm -rf "$tmp"
    return 1
  fi
  tar -C "$tmp/root" --numeric-owner --xattrs -cf - . | zstd -q -T2 -o "$tmp/root.tar.zst" || { rm -rf "$tmp"; return 1; }
  mv "$tmp/root.tar.zst" "$tar" && rm -rf "$tmp"
  # Older roots of this cache are stale now.
  find "$VM_CACHE" -maxdepth 1 -name 'vm-root-*.tar.zst' ! -name "$(basename "$tar")" -delete
  echo "$tar"
}

vm_root_unpack() {  # TAR DIR
  mkdir -p "$2" && zstd -q -dc "$1" | tar -C "$2" --numeric-owner --xattrs -xf -
}
