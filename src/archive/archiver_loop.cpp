#include "archive/archiver_loop.hpp"

#include "core/log.hpp"
#include "core/time_text.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

namespace petricore::archive {
namespace {

constexpr double kFirstBackOffSeconds = 10;

}  // namespace

ArchiverLoop::ArchiverLoop(const sources::ArchiveConnector& connector, Archiver& archiver, double interval_seconds)
    : connector_(connector), archiver_(archiver), interval_seconds_(interval_seconds) {}

ArchiverLoop::~ArchiverLoop() {
  stop();
}

void ArchiverLoop::start() {
  thread_ = std::thread([this] { run(); });
}

void ArchiverLoop::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ArchiverLoop::stopping() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stop_;
}

ArchiveHealth ArchiverLoop::health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return health_;
}

void ArchiverLoop::run() {
  std::unique_ptr<sources::SqlDatabase> db;
  double back_off = kFirstBackOffSeconds;
  std::string last_reason;
  while (!stopping()) {
    std::optional<Error> failed;
    ArchiveCounts counts;
    if (!db) {
      auto connected = connector_.connect();
      if (connected) {
        db = std::move(*connected);
      } else {
        failed = connected.error();
      }
    }
    if (db) {
      sources::JobArchive archive(*db, connector_.cluster());
      ArchiveRun run = archiver_.catch_up(archive, [this] { return stopping(); });
      counts = run.counts;
      failed = run.error;
      // A connection that failed may be dead (a restarted server, a
      // replaced file): the next pass connects anew.
      if (failed) db.reset();
    }
    double wait = interval_seconds_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      health_.archived += counts.archived;
      if (failed) {
        ++health_.errors;
        health_.ok = false;
        health_.reason = failed->message;
        wait = std::min(back_off, interval_seconds_);
        back_off = std::min(back_off * 2, interval_seconds_);
      } else {
        health_.ok = true;
        health_.reason.clear();
        health_.last_success = epoch_seconds();
        back_off = kFirstBackOffSeconds;
      }
    }
    // Said once per new reason, not at every retry.
    if (failed && failed->message != last_reason) {
      log::warning("archive: " + failed->message + " (retrying with back-off)");
    } else if (!failed && !last_reason.empty()) {
      log::info("archive: working again");
    }
    last_reason = failed ? failed->message : std::string();
    if (counts.archived > 0) log::debug("archive: " + std::to_string(counts.archived) + " jobs archived");

    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait_for(lock, std::chrono::duration<double>(wait), [this] { return stop_; });
  }
}

}  // namespace petricore::archive
