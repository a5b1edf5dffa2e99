// The archive as serve's request threads read it: one connection, made on
// first use and again after a failure (the database restarted, the file was
// replaced), used by one thread at a time. SQLite readers never wait for the
// archiver's writes (WAL); they do wait for each other here, which a cache
// in front (the efficiency answers, the result cache) keeps rare.
#pragma once

#include "core/result.hpp"
#include "sources/archive_store.hpp"
#include "sources/job_archive.hpp"

#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

namespace petricore::archive {

class SharedArchive {
 public:
  // `connector` must outlive this object.
  explicit SharedArchive(const sources::ArchiveConnector& connector) : connector_(connector) {}

  bool enabled() const { return connector_.enabled(); }
  const std::string& cluster() const { return connector_.cluster(); }

  // Calls use(archive, database) under the lock, connecting first when
  // needed; returns what it returns. A failed connection, or a failure of
  // `use`, drops the connection so that the next call connects anew.
  template <typename Use>
  auto with(Use&& use) -> decltype(use(std::declval<sources::JobArchive&>(), std::declval<sources::SqlDatabase&>())) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!db_) {
      auto connected = connector_.connect();
      if (!connected) return connected.error();
      db_ = std::move(*connected);
    }
    sources::JobArchive archive(*db_, connector_.cluster());
    auto result = use(archive, *db_);
    if (!result) db_.reset();
    return result;
  }

 private:
  const sources::ArchiveConnector& connector_;
  std::mutex mutex_;
  std::unique_ptr<sources::SqlDatabase> db_;
};

}  // namespace petricore::archive
