#include "collect/file_reader.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace petricore::collect {
namespace {
// The record getdents64 fills (glibc 2.36 has no getdents64 wrapper in C++).
struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};
}  // namespace

ReadStatus classify_errno(int errno_value) {
  switch (errno_value) {
    case 0:
      return ReadStatus::Ok;
    case ENOENT:
    case ESRCH:
    case ENOTDIR:
      return ReadStatus::Missing;
    case EACCES:
    case EPERM:
      return ReadStatus::Denied;
    default:
      return ReadStatus::Failed;
  }
}

std::string describe(const ReadError& error) {
  return std::strerror(error.errno_value);
}

std::optional<UniqueFd> open_directory(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  return UniqueFd{fd};
}

std::optional<UniqueFd> open_directory_at(int dirfd, const char* relative_path) {
  int fd = ::openat(dirfd, relative_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  return UniqueFd{fd};
}

struct ReadBufferAccess {
  // Makes room for at least `extra` more bytes after the current content.
  static void reserve(ReadBuffer& b, std::size_t extra) {
    if (b.capacity_ - b.size_ >= extra) return;
    std::size_t capacity = std::max<std::size_t>(b.capacity_ * 2, 4096);
    while (capacity - b.size_ < extra) capacity *= 2;
    std::unique_ptr<char[]> data(new char[capacity]);
    if (b.size_ > 0) std::memcpy(data.get(), b.data_.get(), b.size_);
    b.data_ = std::move(data);
    b.capacity_ = capacity;
  }
  static char* free_space(ReadBuffer& b) { return b.data_.get() + b.size_; }
  static std::size_t free_size(const ReadBuffer& b) { return b.capacity_ - b.size_; }
  static void grow(ReadBuffer& b, std::size_t n) { b.size_ += n; }
  static void clear(ReadBuffer& b) { b.size_ = 0; }
};

ReadError pread_whole(int fd, ReadBuffer& buffer, Records records) {
  using B = ReadBufferAccess;
  B::clear(buffer);
  // Kernel pseudo-files report size 0, so read until the end, growing as needed.
  for (;;) {
    B::reserve(buffer, 1024);
    std::size_t asked = B::free_size(buffer);
    ssize_t n = ::pread(fd, B::free_space(buffer), asked, static_cast<off_t>(buffer.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return {classify_errno(errno), errno};
    }
    if (n == 0) return {};
    B::grow(buffer, static_cast<std::size_t>(n));
    if (records == Records::One && static_cast<std::size_t>(n) < asked) return {};
  }
}

ReadError read_file_at(int dirfd, const char* relative_path, ReadBuffer& buffer, Records records) {
  ReadBufferAccess::clear(buffer);
  UniqueFd fd{::openat(dirfd, relative_path, O_RDONLY | O_CLOEXEC)};
  if (!fd.valid()) return {classify_errno(errno), errno};
  return pread_whole(fd.get(), buffer, records);
}

KernelFilesystem kernel_filesystem(int fd) {
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0) return KernelFilesystem::None;
  switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
      return KernelFilesystem::Proc;
    case CGROUP_SUPER_MAGIC:
      return KernelFilesystem::Cgroup1;
    case CGROUP2_SUPER_MAGIC:
      return KernelFilesystem::Cgroup2;
    case SYSFS_MAGIC:
      return KernelFilesystem::Sys;
    default:
      return KernelFilesystem::None;
  }
}

ListOptions fresh_listing(KernelFilesystem fs) {
  return {false, fs != KernelFilesystem::None};
}

ReadError read_link_at(int dirfd, const char* relative_path, ReadBuffer& buffer) {
  using B = ReadBufferAccess;
  B::clear(buffer);
  B::reserve(buffer, 256);
  for (;;) {
    ssize_t n = ::readlinkat(dirfd, relative_path, B::free_space(buffer), B::free_size(buffer));
    if (n < 0) return {classify_errno(errno), errno};
    if (static_cast<std::size_t>(n) < B::free_size(buffer)) {
      B::grow(buffer, static_cast<std::size_t>(n));
      return {};
    }
    B::reserve(buffer, B::free_size(buffer) * 2);  // possibly truncated: retry larger
  }
}

bool list_directory(int dirfd, const std::function<void(std::string_view, bool)>& visit, ListOptions options) {
  // getdents64 straight on the held fd: opendir/fdopendir would add a dup,
  // an fstat and a fcntl per directory, and /proc/<pid>/fd is listed for
  // every process on every pass.
  if (options.rewind && ::lseek(dirfd, 0, SEEK_SET) < 0) return false;
  alignas(8) char buffer[8192];
  // The longest record: a 255-byte name, its NUL and the header, 8-aligned.
  constexpr long kLongestRecord = (sizeof(LinuxDirent64) + 256 + 7) / 8 * 8;
  for (;;) {
    long n = ::syscall(SYS_getdents64, dirfd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
    bool last = options.short_read_ends && n + kLongestRecord <= static_cast<long>(sizeof buffer);
    for (long offset = 0; offset < n;) {
      auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + offset);
      offset += entry->d_reclen;
      const char* name = entry->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      bool is_directory = entry->d_type == DT_DIR;
      if (options.directories_only && !is_directory && entry->d_type != DT_UNKNOWN) continue;
      if (options.skip_regular_files && entry->d_type == DT_REG) continue;
      if (entry->d_type == DT_UNKNOWN) {
        struct stat st;
        is_directory = ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        if (options.directories_only && !is_directory) continue;
      }
      visit(name, is_directory);
    }
    if (last) return true;
  }
}

}  // namespace petricore::collect
