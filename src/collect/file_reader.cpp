#include "collect/file_reader.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace petricore::collect {

ReadStatus classify_errno(int errno_value) {
  switch (errno_value) {
    case 0: return ReadStatus::Ok;
    case ENOENT:
    case ESRCH:
    case ENOTDIR: return ReadStatus::Missing;
    case EACCES:
    case EPERM: return ReadStatus::Denied;
    default: return ReadStatus::Failed;
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
  // fdopendir takes ownership of the fd it is given, so hand it a duplicate.
  int copy = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return false;
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) {
    ::close(copy);
    return false;
  }
  ::rewinddir(dir);
  while (dirent* entry = ::readdir(dir)) {
    const char* name = entry->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    bool is_directory = entry->d_type == DT_DIR;
    if (entry->d_type == DT_UNKNOWN) {
      struct stat st;
      is_directory = ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    }
    visit(name, is_directory);
  }
  ::closedir(dir);
  return true;
}

}  // namespace petricore::collect
