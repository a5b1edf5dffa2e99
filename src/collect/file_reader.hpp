// Cheap file access relative to a held directory fd (the /proc root, a cgroup
// root or a fixture tree). Every read goes through openat + one read loop into
// a caller-owned buffer that keeps its capacity between calls, so a collection
// pass allocates almost nothing.
#pragma once

#include "core/unique_fd.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace petricore::collect {

enum class ReadStatus {
  Ok,
  Missing,  // ENOENT / ESRCH: the process or cgroup went away, which is normal
  Denied,   // EACCES / EPERM
  Failed,   // any other error (EIO, ENODEV on a dying cgroup, ...)
};

// A growable byte buffer reused across reads. Unlike std::string it never
// zero-fills the space a read is about to overwrite, which was a third of a
// collection pass's user time.
class ReadBuffer {
 public:
  std::string_view view() const { return {data_.get(), size_}; }
  operator std::string_view() const { return view(); }
  std::size_t size() const { return size_; }

 private:
  friend struct ReadBufferAccess;
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
  std::size_t size_ = 0;
};

struct ReadError {
  ReadStatus status = ReadStatus::Ok;
  int errno_value = 0;
};

// Opens `path` as a directory. nullopt with errno set on failure.
std::optional<UniqueFd> open_directory(const std::string& path);
std::optional<UniqueFd> open_directory_at(int dirfd, const char* relative_path);

// What one read of a kernel file returns. One: single-record files (procfs's
// stat, io and /proc/stat, a cgroup's counters, regular files), where a read
// shorter than asked for has reached the end, so a file costs one read. Many:
// files the kernel renders record by record into a page-sized buffer
// (cgroup.procs), where only a read of 0 bytes is the end.
enum class Records { One, Many };

// Reads the whole file `relative_path` below `dirfd` into `buffer`
// (replacing its content).
ReadError read_file_at(int dirfd, const char* relative_path, ReadBuffer& buffer, Records records = Records::Many);

// Reads the open file `fd` from offset 0 into `buffer` with pread, as
// read_file_at reads a file it opened.
ReadError pread_whole(int fd, ReadBuffer& buffer, Records records);

// Which kernel filesystem `fd` is on, if any.
enum class KernelFilesystem { None, Proc, Cgroup1, Cgroup2, Sys };
KernelFilesystem kernel_filesystem(int fd);

// Reads the target of the symlink `relative_path` below `dirfd` into `buffer`.
ReadError read_link_at(int dirfd, const char* relative_path, ReadBuffer& buffer);

// How list_directory reads a directory.
struct ListOptions {
  // Rewind first: the fd was listed before (a held one). A fresh fd is at
  // its start already, and the lseek would be one more system call.
  bool rewind = true;
  // A getdents64 that left room for another entry has listed the rest:
  // true of procfs and of kernfs (cgroupfs, sysfs), which fill the buffer
  // until their entries run out, so the closing empty getdents64 is saved.
  // Not assumed of other filesystems.
  bool short_read_ends = false;
  // Visit directories only: a cgroup directory holds some 40 files for each
  // child cgroup, and a visit is a std::function call.
  bool directories_only = false;
  // Visit no regular file (a cgroup root's own files; its directories and
  // symlinks, v1's cpuacct -> cpu,cpuacct, are visited).
  bool skip_regular_files = false;
};

// How to list a directory fd just opened on filesystem `fs`: no rewind, and
// on the kernel's own filesystems (procfs, cgroupfs, sysfs) no closing empty
// getdents64. Compute `fs` once for a tree (a cgroup hierarchy), not per directory.
ListOptions fresh_listing(KernelFilesystem fs);

// Calls `visit(name, is_directory)` for every entry of the directory `dirfd`
// except "." and "..". is_directory comes from d_type (DT_UNKNOWN is resolved
// with fstatat). Returns false when the directory could not be read.
bool list_directory(int dirfd, const std::function<void(std::string_view name, bool is_directory)>& visit,
                    ListOptions options = {});

// Classifies an errno value.
ReadStatus classify_errno(int errno_value);

// "permission denied" etc., for log messages.
std::string describe(const ReadError& error);

}  // namespace petricore::collect
