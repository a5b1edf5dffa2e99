// Serve's archiver: a thread of its own that runs Archiver::catch_up every
// interval on a connection of its own, and backs off when a source or the
// archive fails (10 s, doubling up to the interval), so that serve keeps
// answering from Prometheus whatever the archive does. What it last saw is
// its health: /healthz says "degraded" with the reason while it fails, and
// /metrics counts the failures (petricore_archive_errors_total).
#pragma once

#include "archive/archiver.hpp"
#include "sources/archive_store.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace petricore::archive {

struct ArchiveHealth {
  bool ok = true;                 // the last pass (or connection) succeeded, or none ran yet
  std::string reason;             // why not, one line
  std::uint64_t errors = 0;       // failed passes and connections since start
  std::uint64_t archived = 0;     // jobs stored since start
  std::int64_t last_success = 0;  // epoch seconds of the last good pass, 0 = none yet
};

class ArchiverLoop {
 public:
  // The references must outlive the loop. interval_seconds > 0.
  ArchiverLoop(const sources::ArchiveConnector& connector, Archiver& archiver, double interval_seconds);
  ~ArchiverLoop();  // stops
  ArchiverLoop(const ArchiverLoop&) = delete;
  ArchiverLoop& operator=(const ArchiverLoop&) = delete;

  void start();
  // Asks the thread to stop (between batches) and waits for it.
  void stop();
  ArchiveHealth health() const;

 private:
  void run();
  bool stopping() const;

  const sources::ArchiveConnector& connector_;
  Archiver& archiver_;
  double interval_seconds_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  ArchiveHealth health_;
  std::thread thread_;
};

}  // namespace petricore::archive
