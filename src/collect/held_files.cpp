#include "collect/held_files.hpp"

#include "core/open_file_limit.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <limits>

namespace petricore::collect {

namespace {

// Never more than this share of the open-file limit: the sinks' sockets, the
// other reader's held files and the fresh opens of a pass need the rest.
std::size_t quarter_of_open_file_limit() {
  const std::size_t limit = open_file_limit();
  return limit == std::numeric_limits<std::size_t>::max() ? limit : limit / 4;
}

}  // namespace

HeldFiles::HeldFiles(std::size_t capacity) : capacity_(std::min(capacity, quarter_of_open_file_limit())) {}

bool HeldFiles::holdable(KernelFilesystem fs, Kind kind) {
  switch (kind) {
    case HeldFiles::Kind::OneRecordFile:
      return fs != KernelFilesystem::None;
    case HeldFiles::Kind::ManyRecordFile:
      return fs != KernelFilesystem::None && fs != KernelFilesystem::Cgroup1;
    case HeldFiles::Kind::Directory:
      return fs == KernelFilesystem::Proc;
  }
  return false;
}

void HeldFiles::keep(const std::string& path, UniqueFd fd, Kind kind, KernelFilesystem fs) {
  if (held_ >= capacity_) return;  // perhaps next pass, when some were swept
  Entry& entry = entries_[path];
  entry.used_in = period_;
  // Not holdable: remembered as such (no fd), so the next passes read it
  // the plain way without asking its filesystem again.
  if (!holdable(fs, kind)) return;
  entry.fd = std::move(fd);
  ++held_;
}

void HeldFiles::drop(std::unordered_map<std::string, Entry>::iterator entry) {
  if (entry->second.fd.valid()) --held_;
  entries_.erase(entry);
}

ReadError HeldFiles::read(int dirfd, const std::string& path, ReadBuffer& buffer, Records records) {
  auto known = entries_.find(path);
  if (known != entries_.end()) {
    known->second.used_in = period_;
    if (!known->second.fd.valid()) return read_file_at(dirfd, path.c_str(), buffer, records);
    ReadError error = pread_whole(known->second.fd.get(), buffer, records);
    if (error.status == ReadStatus::Ok) return error;
    drop(known);  // its process or cgroup is gone; the path may name a new one
  }
  UniqueFd fd{::openat(dirfd, path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (!fd.valid()) return {classify_errno(errno), errno};
  ReadError error = pread_whole(fd.get(), buffer, records);
  if (error.status == ReadStatus::Ok && held_ < capacity_) {
    KernelFilesystem fs = kernel_filesystem(fd.get());
    keep(path, std::move(fd), records == Records::One ? Kind::OneRecordFile : Kind::ManyRecordFile, fs);
  }
  return error;
}

bool HeldFiles::list(int dirfd, const std::string& path, const DirectoryVisitor& visit) {
  auto list_fd = [&](int fd, ListOptions options) {
    return list_directory(
        fd, [&](std::string_view name, bool is_directory) { visit(fd, name, is_directory); }, options);
  };
  auto open_dir = [&] { return UniqueFd{::openat(dirfd, path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)}; };
  auto known = entries_.find(path);
  if (known != entries_.end()) {
    known->second.used_in = period_;
    if (!known->second.fd.valid()) {  // not holdable: the plain way
      UniqueFd fd = open_dir();
      return fd.valid() && list_fd(fd.get(), {false, false});
    }
    // Held directories are procfs's. One gone since (a process's fd/ once
    // it exited) fails at its first getdents, before any entry is visited.
    if (list_fd(known->second.fd.get(), {true, true})) return true;
    drop(known);
  }
  UniqueFd fd = open_dir();
  if (!fd.valid()) return false;
  KernelFilesystem fs = held_ < capacity_ ? kernel_filesystem(fd.get()) : KernelFilesystem::None;
  bool listed = list_fd(fd.get(), {false, fs == KernelFilesystem::Proc});
  if (listed && held_ < capacity_) keep(path, std::move(fd), Kind::Directory, fs);
  return listed;
}

void HeldFiles::drop(std::unordered_map<std::string, CgroupEntry>::iterator entry) {
  if (entry->second.dir.valid()) held_ -= 2;
  cgroups_.erase(entry);
}

HeldFiles::CgroupDir HeldFiles::read_cgroup(int parent_fd, const char* name, const std::string& path,
                                            ReadBuffer& procs) {
  CgroupDir out;
  auto known = cgroups_.find(path);
  if (known != cgroups_.end()) {
    known->second.used_in = period_;
    if (known->second.dir.valid()) {
      out.procs = pread_whole(known->second.procs.get(), procs, Records::Many);
      if (out.procs.status == ReadStatus::Ok) {
        out.fd = known->second.dir.get();
        out.held = out.holding = true;
        return out;
      }
      drop(known);  // removed, perhaps made anew: opened afresh below
      known = cgroups_.end();
    }
  }
  out.fresh = UniqueFd{::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (!out.fresh.valid()) {
    out.procs = {classify_errno(errno), errno};
    return out;
  }
  out.fd = out.fresh.get();
  UniqueFd file{::openat(out.fd, "cgroup.procs", O_RDONLY | O_CLOEXEC)};
  if (!file.valid()) {
    out.procs = {classify_errno(errno), errno};
    return out;
  }
  out.procs = pread_whole(file.get(), procs, Records::Many);
  if (out.procs.status != ReadStatus::Ok) return out;
  if (known != cgroups_.end()) return out;  // known not to be v2: the plain way
  if (held_ + 2 > capacity_) return out;    // perhaps next pass, when some were swept
  CgroupEntry& entry = cgroups_[path];
  entry.used_in = period_;
  // Not v2: remembered as such, so the next passes ask no filesystem again.
  if (kernel_filesystem(out.fd) != KernelFilesystem::Cgroup2) return out;
  entry.dir = std::move(out.fresh);
  entry.procs = std::move(file);
  held_ += 2;
  out.holding = true;
  return out;
}

ReadError HeldFiles::reread_cgroup(const std::string& path, ReadBuffer& procs) {
  auto known = cgroups_.find(path);
  if (known == cgroups_.end() || !known->second.dir.valid()) return {ReadStatus::Missing, ENOENT};
  known->second.used_in = period_;
  ReadError error = pread_whole(known->second.procs.get(), procs, Records::Many);
  if (error.status != ReadStatus::Ok) drop(known);
  return error;
}

void HeldFiles::sweep() {
  auto sweep_map = [this](auto& map) {
    for (auto it = map.begin(); it != map.end();) {
      auto next = std::next(it);
      if (it->second.used_in != period_) drop(it);
      it = next;
    }
  };
  sweep_map(entries_);
  sweep_map(cgroups_);
  ++period_;
}

}  // namespace petricore::collect
