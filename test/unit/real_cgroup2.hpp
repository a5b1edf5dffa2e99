// Real kernel objects for unit tests: a child process that sleeps until
// killed, and a cgroup v2 hierarchy to put it in.
#pragma once

#include "catch.hpp"

#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace petricore::test {

namespace fs = std::filesystem;

// A child that sleeps until killed, reaped by kill_and_reap().
struct SleepingChild {
  pid_t pid = ::fork();
  SleepingChild() {
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
  }
  ~SleepingChild() { kill_and_reap(); }
  void kill_and_reap() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
};

// The unified hierarchy mounted in a temporary directory: on a v1 host it is
// free to mount, without controllers, and its kernfs directories and
// cgroup.procs behave as on a v2 node. The hierarchy is one per host (a
// hybrid host has it at /sys/fs/cgroup/unified already), so the test works
// in a cgroup of its own, `top`, and removes only that. A process leaving
// the test's cgroups goes to `parking`, a leaf of top: the mount's root may be
// a cgroup namespace's, which takes no process once it has controllers on.
// Needs root.
struct Cgroup2Mount {
  fs::path mount_dir, top, parking;
  bool mounted = false;
  Cgroup2Mount() {
    std::string templ = (fs::temp_directory_path() / "petricore-cg2-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) return;
    mount_dir = templ;
    if (::mount("none", templ.c_str(), "cgroup2", 0, nullptr) != 0) return;
    mounted = true;
    top = mount_dir / ("petricore_held_test_" + std::to_string(::getpid()));
    parking = top / "parking";
    if (::mkdir(top.c_str(), 0755) != 0) {
      top.clear();
    } else if (::mkdir(parking.c_str(), 0755) != 0) {
      ::rmdir(top.c_str());
      top.clear();
    }
  }
  ~Cgroup2Mount() {
    if (!top.empty()) {
      // Leaf first; the test moves its child out before a cgroup goes.
      std::vector<fs::path> dirs{top};
      std::error_code ec;
      for (auto it = fs::recursive_directory_iterator(top, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec))
        if (it->is_directory(ec)) dirs.push_back(it->path());
      for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) ::rmdir(d->c_str());
    }
    if (mounted) ::umount2(mount_dir.c_str(), MNT_DETACH);
    std::error_code ec;
    fs::remove(mount_dir, ec);
  }
};

// Moves `pid` into the cgroup directory `cgroup`.
inline void move_process(pid_t pid, const fs::path& cgroup) {
  std::ofstream out(cgroup / "cgroup.procs");
  out << pid << "\n";
  out.flush();
  REQUIRE(out.good());
}

}  // namespace petricore::test
