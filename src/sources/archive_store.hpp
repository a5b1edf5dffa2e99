// Where the job archive lives ([archive]): an SQLite file (the default, no
// set-up: /var/lib/petricore/archive.db) or a MariaDB database that several
// `serve` instances share (`init-db` creates it), or nowhere (`none`).
// Connections are made on demand, each with the schema brought up to date,
// so that a database that was down at start-up is used once it is back.
#pragma once

#include "core/result.hpp"
#include "sources/accounting_factory.hpp"
#include "sources/sql_database.hpp"

#include <memory>
#include <string>

namespace petricore::sources {

struct ArchiveOptions {
  std::string store = "sqlite";  // sqlite | mariadb | none
  std::string path = "/var/lib/petricore/archive.db";
  // The MariaDB store: host or socket, user, password file, database.
  DbConfig db{"", 3306, "", "petricore", "", "petricore", "", 5};
  // The name the records are filed under, so that several clusters may
  // share one database (Slurm's ClusterName is a good choice).
  std::string cluster = "default";
};

class ArchiveConnector {
 public:
  // Throws StartupError naming the setting for an unknown store, a MariaDB
  // store without a host or socket, an unreadable password file or an empty
  // cluster name. Touches no database.
  explicit ArchiveConnector(const ArchiveOptions& options);

  bool enabled() const { return store_ != "none"; }
  const std::string& cluster() const { return cluster_; }
  // "sqlite at /var/lib/petricore/archive.db", "mariadb at db1:3306/petricore".
  std::string describe() const;

  // Whether there may be records to read: the store is MariaDB, or the
  // SQLite file exists. A reader that is not the archiver checks this
  // first, because connect() would create the file, owned by the reader.
  bool exists() const;

  // A new connection, its schema migrated to the current version.
  // Unavailable when the database cannot be reached or written; BadInput
  // when the file is not a database or its schema is newer than this
  // petricore's (each one line naming the database).
  Result<std::unique_ptr<SqlDatabase>> connect() const;

 private:
  std::string store_;
  std::string path_;
  DbConfig db_;
  std::string password_;
  std::string cluster_;
};

}  // namespace petricore::sources
