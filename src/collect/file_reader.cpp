#include "collect/file_reader.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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

ReadError read_file_at(int dirfd, const char* relative_path, std::string& buffer) {
  buffer.clear();
  UniqueFd fd{::openat(dirfd, relative_path, O_RDONLY | O_CLOEXEC)};
  if (!fd.valid()) return {classify_errno(errno), errno};
  if (buffer.capacity() < 4096) buffer.reserve(4096);
  // Kernel pseudo-files report size 0, so read until EOF, growing as needed.
  for (;;) {
    std::size_t used = buffer.size();
    if (buffer.capacity() - used < 1024) buffer.reserve(buffer.capacity() * 2);
    buffer.resize(buffer.capacity());
    ssize_t n = ::read(fd.get(), buffer.data() + used, buffer.size() - used);
    if (n < 0) {
      int e = errno;
      buffer.resize(used);
      if (e == EINTR) continue;
      return {classify_errno(e), e};
    }
    buffer.resize(used + static_cast<std::size_t>(n));
    if (n == 0) break;
  }
  return {};
}

ReadError read_link_at(int dirfd, const char* relative_path, std::string& buffer) {
  if (buffer.capacity() < 256) buffer.reserve(256);
  for (;;) {
    buffer.resize(buffer.capacity());
    ssize_t n = ::readlinkat(dirfd, relative_path, buffer.data(), buffer.size());
    if (n < 0) {
      int e = errno;
      buffer.clear();
      return {classify_errno(e), e};
    }
    if (static_cast<std::size_t>(n) < buffer.size()) {
      buffer.resize(static_cast<std::size_t>(n));
      return {};
    }
    buffer.reserve(buffer.capacity() * 2);  // possibly truncated: retry larger
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
