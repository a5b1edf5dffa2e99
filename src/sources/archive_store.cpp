#include "sources/archive_store.hpp"

#include "core/secret_file.hpp"
#include "core/startup_error.hpp"
#include "sources/archive_schema.hpp"
#include "sources/mariadb_library.hpp"
#include "sources/sqlite_library.hpp"

#include <unistd.h>

namespace petricore::sources {

ArchiveConnector::ArchiveConnector(const ArchiveOptions& options)
    : store_(options.store), path_(options.path), db_(options.db), cluster_(options.cluster) {
  if (store_ != "sqlite" && store_ != "mariadb" && store_ != "none")
    throw StartupError("[archive] store must be sqlite, mariadb or none, not '" + store_ + "'");
  if (!enabled()) return;
  if (cluster_.empty() || cluster_.size() > 64) throw StartupError("[archive] cluster must be 1-64 characters");
  if (store_ == "sqlite" && path_.empty()) throw StartupError("[archive] path must name the SQLite file");
  if (store_ == "mariadb") {
    if (!db_.configured()) throw StartupError("[archive] store mariadb needs [archive.db] host or socket");
    if (db_.database.empty()) throw StartupError("[archive.db] database must not be empty");
    password_ = read_password_file(db_.password_file, "[archive.db] password_file");
  }
}

bool ArchiveConnector::exists() const {
  if (store_ == "sqlite") return ::access(path_.c_str(), F_OK) == 0;
  return enabled();
}

std::string ArchiveConnector::describe() const {
  if (store_ == "sqlite") return "sqlite at " + path_;
  if (store_ == "mariadb") {
    std::string where = db_.host.empty() ? db_.socket : db_.host + ":" + std::to_string(db_.port);
    return "mariadb at " + where + "/" + db_.database;
  }
  return "no archive";
}

Result<std::unique_ptr<SqlDatabase>> ArchiveConnector::connect() const {
  std::unique_ptr<SqlDatabase> db;
  if (store_ == "sqlite") {
    auto opened = SqliteDatabase::open(path_, true, db_.timeout_seconds);
    if (!opened) return opened.error();
    db = std::move(*opened);
  } else if (store_ == "mariadb") {
    MariaDbTarget target;
    target.host = db_.host;
    target.port = db_.port;
    target.socket = db_.socket;
    target.user = db_.user;
    target.password = password_;
    target.database = db_.database;
    target.timeout_seconds = db_.timeout_seconds;
    auto connected = MariaDbConnection::connect(target);
    if (!connected) return connected.error();
    db = std::make_unique<MariaDbConnection>(std::move(*connected));
  } else {
    return unavailable("no archive is configured ([archive] store none)");
  }
  auto migrated = migrate_archive(*db);
  if (!migrated) return migrated.error();
  return db;
}

}  // namespace petricore::sources
