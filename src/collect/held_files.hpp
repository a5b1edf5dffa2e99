// Kernel files kept open between collection passes. A held file is re-read
// with one pread at offset 0 (the kernel renders it afresh), where a fresh
// read costs openat + read + read + close; a held directory is re-listed with
// lseek + getdents. On a node whose passes read the same few hundred files
// every time, that is most of a pass's system calls.
//
// Only files of procfs, cgroupfs and sysfs are held: there a file whose
// process or cgroup went away reads as an error (ESRCH, ENOENT, ENODEV) and
// never as the old content, so a held fd cannot show a dead process or a
// removed cgroup as alive, and a reused pid or cgroup name is opened afresh.
// Files of other filesystems (fixture trees) are read the plain way. Two
// exceptions: a cgroup directory is held only together with its v2
// cgroup.procs (read_cgroup below), since a removed cgroup directory lists
// as empty instead of failing; and v1's cgroup.procs is never held, since v1
// keeps a pid list per open file for as long as it is re-read within a
// second (cgroup_pidlist_start): a held one would show the processes of its
// first read forever. v2 lists them afresh from offset 0.
//
// Entries not used during a pass are closed by sweep(); at most `capacity`
// are held (each held kernel file keeps a page of kernel memory, charged to
// the collector's cgroup). Not thread-safe: one per reader.
#pragma once

#include "core/open_file_limit.hpp"

#include "collect/file_reader.hpp"
#include "core/unique_fd.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace petricore::collect {

class HeldFiles {
 public:
  // Holds at most `capacity` fds (0: none; every read opens its file), and
  // never more than a quarter of the open-file limit at construction.
  explicit HeldFiles(std::size_t capacity);
  HeldFiles(const HeldFiles&) = delete;
  HeldFiles& operator=(const HeldFiles&) = delete;

  // Reads the file `path` below `dirfd` into `buffer`, through the held fd
  // when there is one. A held fd that fails is dropped and the file opened
  // anew once, so an error is the path's own.
  ReadError read(int dirfd, const std::string& path, ReadBuffer& buffer, Records records);

  // Calls `visit(directory_fd, name, is_directory)` for every entry of the
  // directory `path` below `dirfd` (as list_directory; directory_fd is the
  // listed directory's, for *at calls on its entries). False with errno set
  // when it cannot be listed.
  using DirectoryVisitor = std::function<void(int directory_fd, std::string_view name, bool is_directory)>;
  bool list(int dirfd, const std::string& path, const DirectoryVisitor& visit);

  // A cgroup directory, to be listed, and its cgroup.procs, read.
  struct CgroupDir {
    ReadError procs;       // reading cgroup.procs; `Missing` also when the directory is gone
    int fd = -1;           // the directory (-1: gone or unreadable), valid until the next sweep()
    bool held = false;     // listed before: rewind it (list_directory's ListOptions)
    bool holding = false;  // held from now on: reread_cgroup(path) reads it
    UniqueFd fresh;        // owns fd when it is not held
  };
  // Opens the cgroup directory `name` below `parent_fd` (`path` names it
  // for the next passes) and reads its cgroup.procs into `procs`. On cgroup
  // v2 the two stay open as a pair, cgroup.procs opened through the
  // directory: while the held cgroup.procs reads, its cgroup is alive and the
  // held directory is that cgroup's. Once the cgroup is removed (and perhaps
  // made anew under the same name) the read fails, and both are opened
  // afresh. A pass then costs pread + lseek + getdents64 per cgroup instead
  // of openat + read + read + close for the file and openat + getdents64 +
  // close for the directory.
  CgroupDir read_cgroup(int parent_fd, const char* name, const std::string& path, ReadBuffer& procs);

  // Reads the cgroup.procs of the cgroup `path` that read_cgroup holds, and
  // opens nothing: `Missing` when none is held (or the held one failed and
  // was dropped: the cgroup was removed).
  ReadError reread_cgroup(const std::string& path, ReadBuffer& procs);

  // Closes what was not used since the previous sweep.
  void sweep();

  // Fds held now.
  std::size_t held() const { return held_; }
  std::size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    UniqueFd fd;                // none: read the plain way
    std::uint64_t used_in = 0;  // the sweep period it was last used in
  };
  // Keeps `fd` for `path` when its filesystem allows (see above) and there is room.
  enum class Kind { OneRecordFile, ManyRecordFile, Directory };
  void keep(const std::string& path, UniqueFd fd, Kind kind, KernelFilesystem fs);
  static bool holdable(KernelFilesystem fs, Kind kind);

  void drop(std::unordered_map<std::string, Entry>::iterator entry);

  struct CgroupEntry {
    UniqueFd dir, procs;  // none: not v2, read the plain way
    std::uint64_t used_in = 0;
  };
  void drop(std::unordered_map<std::string, CgroupEntry>::iterator entry);

  // By path; an entry without an fd is a file that cannot be held.
  std::unordered_map<std::string, Entry> entries_;
  std::unordered_map<std::string, CgroupEntry> cgroups_;
  std::size_t capacity_;
  std::size_t held_ = 0;
  std::uint64_t period_ = 0;
};

// The collector raises the soft open-file limit (core/open_file_limit.hpp):
// the held files of a busy node need more than the customary 1024, and
// HeldFiles takes at most a quarter of the limit it finds.
using petricore::raise_open_file_limit;

}  // namespace petricore::collect
