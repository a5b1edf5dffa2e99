#include "collect/slow_reads.hpp"

#include "collect/error_counter.hpp"
#include "collect/held_files.hpp"
#include "collect/skip_counter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <stdexcept>

namespace petricore::collect {

namespace {

using Clock = BoundedWorkers::Clock;

constexpr double kPassShare = 0.8;
constexpr double kMinBudgetSeconds = 0.05;
constexpr double kMaxBudgetSeconds = 1.0;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// Three per process (stat, io, the fd directory): a node's first ~1300.
constexpr std::size_t kHeldFiles = 4096;

void add_error(ProcessReading& out, std::string_view source, const std::string& cause, const char* path,
               const ReadError& error) {
  out.errors.push_back({source, cause, std::string{"cannot read /proc/"} + path + ": " + describe(error)});
}

// The reads of one process, on a reader thread. Nothing is counted here:
// the errors go back with the reading.
class ProcessReads {
 public:
  ProcessReads(int root, HeldFiles& held, ReadBuffer& text, ReadBuffer& link)
      : root_(root), held_(held), text_(text), link_(link) {}

  void read(const SlowReadRequest& request, ProcessReading& out) {
    out.pid = request.pid;
    out.stat.reset();
    out.d_state = false;
    out.io.reset();
    out.status.reset();
    out.file_count = 0;
    out.cwd.reset();
    out.environ.reset();
    out.errors.clear();
    pid_ = request.pid;
    if (request.stat) {
      if (held_read("stat", out)) {
        out.stat = parse_proc_stat(text_);
        if (!out.stat) malformed("stat", out);
      }
      if (!out.stat) return;
      if (out.stat->state == 'D') {
        out.d_state = true;
        return;
      }
      if (held_read("io", out)) {
        out.io = parse_proc_io(text_);
        if (!out.io) malformed("io", out);
      }
    }
    if (request.status && read_fresh("status", error_source::proc, out)) {
      out.status = parse_proc_status(text_);
      if (!out.status) malformed("status", out);
    }
    if (request.files) files(out);
    if (request.cwd) {
      ReadError error = read_link_at(root_, path("cwd"), link_);
      if (error.status == ReadStatus::Ok)
        out.cwd.emplace(link_.view());
      else if (error.status != ReadStatus::Missing)
        add_error(out, error_source::proc, "unreadable cwd", path_, error);
    }
    if (request.environ && read_fresh("environ", error_source::environ, out)) out.environ.emplace(text_.view());
  }

 private:
  const char* path(const char* file) {
    std::snprintf(path_, sizeof path_, "%d/%s", pid_, file);
    return path_;
  }
  bool held_read(const char* file, ProcessReading& out) {
    held_path_.assign(path(file));
    return ok(held_.read(root_, held_path_, text_, Records::One), file, error_source::proc, out);
  }
  bool read_fresh(const char* file, std::string_view source, ProcessReading& out) {
    return ok(read_file_at(root_, path(file), text_), file, source, out);
  }
  bool ok(const ReadError& error, const char* file, std::string_view source, ProcessReading& out) {
    if (error.status == ReadStatus::Ok) return true;
    if (error.status != ReadStatus::Missing) add_error(out, source, std::string{"unreadable "} + file, path_, error);
    return false;
  }
  void malformed(const char* file, ProcessReading& out) {
    out.errors.push_back(
        {error_source::proc, std::string{"malformed "} + file, std::string{"cannot parse /proc/"} + path(file)});
  }
  void files(ProcessReading& out) {
    held_path_.assign(path("fd"));
    bool listed = held_.list(root_, held_path_, [&](int fd_dir, std::string_view name, bool) {
      char fd_name[32];
      std::size_t n = std::min(name.size(), sizeof fd_name - 1);
      name.copy(fd_name, n);
      fd_name[n] = '\0';
      if (read_link_at(fd_dir, fd_name, link_).status != ReadStatus::Ok) return;  // closed meanwhile
      if (classify_fd_target(link_) != FdTarget::RegularFile) return;
      std::string_view target = fd_target_path(link_);
      if (out.file_count < out.files.size())
        out.files[out.file_count].assign(target);
      else
        out.files.emplace_back(target);
      ++out.file_count;
    });
    if (!listed) {
      int e = errno;
      if (classify_errno(e) != ReadStatus::Missing)
        add_error(out, error_source::proc, "unreadable fd", held_path_.c_str(), {classify_errno(e), e});
    }
  }

  int root_;
  HeldFiles& held_;
  ReadBuffer& text_;
  ReadBuffer& link_;
  int pid_ = 0;
  char path_[64];
  std::string held_path_;
};

}  // namespace

// What one reader thread works through. The sampling thread gives it up to
// a stuck reader, and keeps it for the next pass otherwise.
struct SlowReads::Batch {
  std::shared_ptr<const UniqueFd> root;
  std::vector<SlowReadRequest> requests;
  std::vector<ProcessReading> readings;  // as many as requests
  std::atomic<std::size_t> done{0};      // readings[0, done) are complete
  std::atomic<bool> finished{false};     // the reader returned
  // Given up on by the sampling thread, which has the rest read elsewhere:
  // a reader that comes back reads no further.
  std::atomic<bool> abandoned{false};
  HeldFiles held{kHeldFiles};  // goes with a stuck reader, with its fds
  ReadBuffer text, link;

  void run(const BoundedWorkers::Progress& progress) {
    ProcessReads reads(root->get(), held, text, link);
    for (std::size_t i = 0; i < requests.size() && !abandoned.load(std::memory_order_acquire); ++i) {
      reads.read(requests[i], readings[i]);
      done.store(i + 1, std::memory_order_release);
      progress.made();
    }
    finished.store(true, std::memory_order_release);
  }
};

SlowReads::SlowReads(int proc_root, double pass_timeout, ErrorCounter& errors, SkipCounter& skips)
    : budget_(seconds(std::clamp(pass_timeout / 4, kMinBudgetSeconds, kMaxBudgetSeconds))),
      share_(seconds(pass_timeout * kPassShare)),
      deadline_(Clock::now() + share_),
      errors_(errors),
      skips_(skips),
      workers_(kReaderThreads) {
  int fd = ::fcntl(proc_root, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("cannot duplicate the proc root fd");
  root_ = std::make_shared<const UniqueFd>(fd);
}

SlowReads::~SlowReads() = default;

void SlowReads::begin_pass() {
  deadline_ = Clock::now() + share_;
  blocked_.clear();
  for (auto it = hung_.begin(); it != hung_.end();)
    it = it->second->finished.load(std::memory_order_acquire) ? hung_.erase(it) : std::next(it);
}

void SlowReads::skip(int pid, std::string_view reason) {
  skips_.count(reason);
  blocked_.push_back(pid);
}

bool SlowReads::blocked(int pid) const {
  return std::find(blocked_.begin(), blocked_.end(), pid) != blocked_.end();
}

bool SlowReads::may_read(int pid) {
  if (hung_.empty()) return true;
  auto it = hung_.find(pid);
  if (it == hung_.end()) return true;
  if (it->second->finished.load(std::memory_order_acquire)) {
    hung_.erase(it);
    return true;
  }
  skip(pid, skip_reason::timeout);
  return false;
}

void SlowReads::end_pass() {
  // Between read() calls no reader touches the batch it was given back.
  if (batch_) batch_->held.sweep();
}

std::shared_ptr<SlowReads::Batch> SlowReads::idle_batch() {
  if (!batch_) {
    batch_ = std::make_shared<Batch>();
    batch_->root = root_;
  }
  return batch_;
}

const std::vector<ProcessReading>& SlowReads::read(const std::vector<SlowReadRequest>& requests) {
  out_.resize(requests.size());
  for (ProcessReading& r : out_) r.read = false;
  std::size_t next = 0;
  while (next < requests.size()) {
    if (Clock::now() >= deadline_) {
      for (; next < requests.size(); ++next) skip(requests[next].pid, skip_reason::pass_timeout);
      break;
    }
    std::shared_ptr<Batch> batch = idle_batch();
    batch->requests.assign(requests.begin() + static_cast<std::ptrdiff_t>(next), requests.end());
    batch->readings.resize(batch->requests.size());
    batch->done.store(0, std::memory_order_relaxed);
    batch->finished.store(false, std::memory_order_relaxed);
    batch->abandoned.store(false, std::memory_order_relaxed);
    BoundedWorkers::Outcome outcome =
        workers_.run([batch](const BoundedWorkers::Progress& progress) { batch->run(progress); }, budget_, deadline_);
    if (outcome == BoundedWorkers::Outcome::NoThread) {
      // Every reader is stuck on an earlier read: no read can be tried.
      for (; next < requests.size(); ++next) skip(requests[next].pid, skip_reason::timeout);
      break;
    }
    std::size_t got =
        outcome == BoundedWorkers::Outcome::Done ? batch->requests.size() : batch->done.load(std::memory_order_acquire);
    for (std::size_t i = 0; i < got; ++i) {
      ProcessReading& reading = out_[next + i];
      std::swap(reading, batch->readings[i]);
      reading.read = true;
      for (const ProcessReading::Error& e : reading.errors) errors_.count(e.source, e.cause, e.detail);
      if (reading.d_state) skip(reading.pid, skip_reason::d_state);
    }
    next += got;
    if (outcome == BoundedWorkers::Outcome::Done) continue;
    // The abandoned reader may still be in the batch, even when it has
    // finished every reading: the batch is its now.
    batch->abandoned.store(true, std::memory_order_release);
    batch_.reset();
    if (next == requests.size()) break;
    // The reader is stuck on the process after the last it finished: that
    // one is left alone until its read returns, the rest go to another reader.
    const SlowReadRequest& stuck = requests[next];
    hung_[stuck.pid] = batch;
    skip(stuck.pid, Clock::now() >= deadline_ ? skip_reason::pass_timeout : skip_reason::timeout);
    ++next;
  }
  return out_;
}

SlowReads::Got SlowReads::environ(int pid, std::string& out) {
  if (blocked(pid)) return Got::Skipped;
  SlowReadRequest request;
  request.pid = pid;
  request.stat = false;
  request.environ = true;
  one_.assign(1, request);
  const ProcessReading& reading = read(one_).front();
  if (!reading.read) return Got::Skipped;
  if (!reading.environ) return Got::Failed;
  out = *reading.environ;
  return Got::Read;
}

}  // namespace petricore::collect
