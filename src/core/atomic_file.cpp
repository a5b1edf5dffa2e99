#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace petricore {
namespace {

// An open file whose close() result matters, which UniqueFd (closing in its
// destructor) cannot return.
class OutputFile {
 public:
  explicit OutputFile(int fd) : fd_(fd) {}
  ~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes now; false (errno set) if the kernel reported an error.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

mode_t umask_mode() {
  // umask() can only be read by setting it: put it straight back.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {  // not for files, pipes or sockets; but never loop on it
      errno = EIO;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<AtomicWriteError> write_file_atomically(const std::string& path, std::string_view data,
                                                      const AtomicWriteOptions& options) {
  std::string temp = options.temp_path;
  int raw = -1;
  if (temp.empty()) {
    temp = path + ".XXXXXX";
    raw = ::mkostemp(temp.data(), O_CLOEXEC);
  } else {
    // O_NOFOLLOW: never write through a symlink planted at the temp name.
    raw = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  }
  OutputFile fd(raw);
  if (!fd.valid()) return AtomicWriteError{AtomicWriteError::Step::Create, errno, temp};
  auto failed = [&](AtomicWriteError::Step step) {
    const int error = errno;
    ::unlink(temp.c_str());
    return AtomicWriteError{step, error, temp};
  };
  // fchmod, not the open mode: that one is cut by the umask (and mkstemp
  // always makes 0600).
  if (::fchmod(fd.get(), options.mode ? *options.mode : umask_mode()) != 0)
    return failed(AtomicWriteError::Step::Chmod);
  if (!write_all(fd.get(), data)) return failed(AtomicWriteError::Step::Write);
  if (options.sync && ::fsync(fd.get()) != 0) return failed(AtomicWriteError::Step::Write);
  if (!fd.close()) return failed(AtomicWriteError::Step::Write);
  if (::rename(temp.c_str(), path.c_str()) != 0) return failed(AtomicWriteError::Step::Rename);
  return std::nullopt;
}

}  // namespace petricore
