#include "collect/textfile_sink.hpp"

#include "collect/exposition.hpp"
#include "collect/metrics.hpp"
#include "core/atomic_file.hpp"
#include "core/log.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

namespace petricore::collect {
namespace {

class TextfileSink final : public Sink {
 public:
  TextfileSink(std::string path, ErrorCounter& errors)
      : path_(std::move(path)), temp_path_(path_ + ".tmp." + std::to_string(::getpid())), errors_(errors) {}

  bool publish(const Exposition& pass) override {
    // 0644 whatever the umask: node_exporter often runs as another user.
    // No fsync: the file is regenerated every interval, so losing the last
    // one in a crash costs nothing, while a flush every pass on every node
    // does cost. rename() alone already gives readers an atomic switch; after
    // a crash, ext4/xfs replace-via-rename heuristics keep either the old or
    // the new content in practice.
    AtomicWriteOptions options;
    options.mode = 0644;
    options.temp_path = temp_path_;
    const std::optional<AtomicWriteError> failed = write_file_atomically(path_, pass.text(), options);
    if (!failed) return true;
    errno = failed->error;
    switch (failed->step) {
      case AtomicWriteError::Step::Create:
        return fail("cannot create " + temp_path_);
      case AtomicWriteError::Step::Chmod:
        return fail("cannot chmod " + temp_path_);
      case AtomicWriteError::Step::Write:
        return fail("cannot write " + temp_path_);
      case AtomicWriteError::Step::Rename:
        break;
    }
    return fail("cannot rename " + temp_path_ + " to " + path_);
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

  const std::string path_;
  const std::string temp_path_;
  ErrorCounter& errors_;
};

class StdoutSink final : public Sink {
 public:
  bool publish(const Exposition& pass) override {
    const std::string& text = pass.text();
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
