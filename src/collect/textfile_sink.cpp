#include "collect/textfile_sink.hpp"

#include "collect/exposition.hpp"
#include "core/log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace petricore::collect {
namespace {

// Writes all of `data`, retrying short writes and EINTR; errno on failure.
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// An open file whose close() result matters: NFS and quotas report write
// errors only there, which UniqueFd (closing in its destructor) cannot return.
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

class TextfileSink final : public Sink {
 public:
  TextfileSink(std::string path, ErrorCounter& errors)
      : path_(std::move(path)), temp_path_(path_ + ".tmp." + std::to_string(::getpid())), errors_(errors) {}

  bool publish(const Snapshot& snapshot) override {
    const std::string text = serialize_text(snapshot);
    // O_NOFOLLOW: never write through a symlink planted at the temp name.
    OutputFile fd(::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644));
    if (!fd.valid()) return fail("cannot create " + temp_path_);
    // 0644 whatever the umask: node_exporter often runs as another user.
    if (::fchmod(fd.get(), 0644) != 0) return fail_and_remove("cannot chmod " + temp_path_);
    if (!write_all(fd.get(), text)) return fail_and_remove("cannot write " + temp_path_);
    // No fsync/fdatasync: the file is regenerated every interval, so losing
    // the last one in a crash costs nothing, while a flush every pass on
    // every node does cost. rename() alone already gives readers an atomic
    // switch; after a crash, ext4/xfs replace-via-rename heuristics keep
    // either the old or the new content in practice.
    if (!fd.close()) return fail_and_remove("cannot write " + temp_path_);
    if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
      return fail_and_remove("cannot rename " + temp_path_ + " to " + path_);
    }
    return true;
  }

  std::string name() const override { return "textfile"; }

 private:
  // `what` plus strerror(errno), counted with the strerror text as the cause.
  bool fail(const std::string& what) {
    const int error = errno;
    errors_.count(error_source::textfile, std::strerror(error),
                  "textfile " + path_ + ": " + what + ": " + std::strerror(error));
    return false;
  }

  bool fail_and_remove(const std::string& what) {
    const int error = errno;
    ::unlink(temp_path_.c_str());
    errno = error;
    return fail(what);
  }

  const std::string path_;
  const std::string temp_path_;
  ErrorCounter& errors_;
};

class StdoutSink final : public Sink {
 public:
  bool publish(const Snapshot& snapshot) override {
    const std::string text = serialize_text(snapshot);
    const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
    if (std::fflush(stdout) != 0 || !written) {
      log::error(std::string("cannot write the metrics to standard output: ") + std::strerror(errno));
      return false;
    }
    return true;
  }

  std::string name() const override { return "stdout"; }
};

}  // namespace

std::unique_ptr<Sink> make_textfile_sink(std::string path, ErrorCounter& errors) {
  return std::make_unique<TextfileSink>(std::move(path), errors);
}

std::unique_ptr<Sink> make_stdout_sink() {
  return std::make_unique<StdoutSink>();
}

}  // namespace petricore::collect
