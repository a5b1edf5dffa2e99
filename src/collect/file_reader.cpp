#include "collect/file_reader.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
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

ReadError read_file_at(int dirfd, const char* relative_path, ReadBuffer& buffer) {
  using B = ReadBufferAccess;
  B::clear(buffer);
  UniqueFd fd{::openat(dirfd, relative_path, O_RDONLY | O_CLOEXEC)};
  if (!fd.valid()) return {classify_errno(errno), errno};
  // Kernel pseudo-files report size 0, so read until EOF, growing as needed.
  for (;;) {
    B::reserve(buffer, 1024);
    ssize_t n = ::read(fd.get(), B::free_space(buffer), B::free_size(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      return {classify_errno(errno), errno};
    }
    if (n == 0) return {};
    B::grow(buffer, static_cast<std::size_t>(n));
  }
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

bool list_directory(int dirfd, const std::function<void(std::string_view, bool)>& visit) {
  // getdents64 straight on the held fd: opendir/fdopendir would add a dup,
  // an fstat and a fcntl per directory, and /proc/<pid>/fd is listed for
  // every process on every pass.
  if (::lseek(dirfd, 0, SEEK_SET) < 0) return false;
  alignas(8) char buffer[8192];
  for (;;) {
    long n = ::syscall(SYS_getdents64, dirfd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) return true;
    for (long offset = 0; offset < n;) {
      auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + offset);
      offset += entry->d_reclen;
      const char* name = entry->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      bool is_directory = entry->d_type == DT_DIR;
      if (entry->d_type == DT_UNKNOWN) {
        struct stat st;
        is_directory = ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      visit(name, is_directory);
    }
  }
}

}  // namespace petricore::collect
