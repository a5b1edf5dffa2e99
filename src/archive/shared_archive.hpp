// The archive as serve's request threads read it: a small pool of
// connections, each made on first need (its schema checked) and dropped
// after a failure (the database restarted, the file was replaced), so that a
// slow fleet query on one thread never holds up another's archived job.
// SQLite readers never wait for the archiver's writes (WAL); MariaDB serves
// each connection on its own. The report command uses one the same way.
#pragma once

#include "core/idle_pool.hpp"
#include "core/result.hpp"
#include "sources/archive_store.hpp"
#include "sources/job_archive.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace petricore::archive {

class SharedArchive {
 public:
  // Connections kept idle between calls; more are made while more threads
  // call at once (serve's worker pool bounds them).
  static constexpr std::size_t kIdleConnections = 4;

  // `connector` must outlive this object.
  explicit SharedArchive(const sources::ArchiveConnector& connector) : connector_(connector) {}

  bool enabled() const { return connector_.enabled(); }
  const std::string& cluster() const { return connector_.cluster(); }

  // Calls use(archive, database) on a connection of its own (an idle one,
  // else a new one); returns what it returns. The connection goes back to
  // the pool unless connecting or `use` failed: the next call then
  // connects anew.
  template <typename Use>
  auto with(Use&& use) -> decltype(use(std::declval<sources::JobArchive&>(), std::declval<sources::SqlDatabase&>())) {
    std::optional<std::unique_ptr<sources::SqlDatabase>> db = idle_.take();
    if (!db) {
      auto connected = connector_.connect();
      if (!connected) return connected.error();
      db = std::move(*connected);
    }
    sources::JobArchive archive(**db, connector_.cluster());
    auto result = use(archive, **db);
    if (result) idle_.give_back(std::move(*db));
    return result;
  }

 private:
  const sources::ArchiveConnector& connector_;
  IdlePool<std::unique_ptr<sources::SqlDatabase>> idle_{kIdleConnections};
};

}  // namespace petricore::archive
