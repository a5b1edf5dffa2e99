// SQLite for the job archive's embedded store: libsqlite3.so.0 is loaded on
// first use (core/shared_library.hpp), as libmariadb is, so the node daemon
// never maps it. One database file, opened by one connection per thread of
// use; writers wait for each other up to the busy timeout.
#pragma once

#include "core/result.hpp"
#include "sources/sql_database.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {

class SqliteDatabase final : public SqlDatabase {
 public:
  // Opens the database file `path`, creating it (not its directory) when
  // `create`. The file is checked to be an SQLite database, in write-ahead
  // log mode so that readers never wait for the writer. Unavailable
  // "sqlite at <path>: <why>" when the library, the file or its format fails.
  static Result<std::unique_ptr<SqliteDatabase>> open(const std::string& path, bool create,
                                                      double busy_timeout_seconds = 5);
  ~SqliteDatabase() override;
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  Result<SqlResult> run(std::string_view sql, const std::vector<SqlParam>& params = {}) override;
  std::string describe() const override;
  bool last_error_was_duplicate() const override;

 private:
  struct Impl;
  explicit SqliteDatabase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace petricore::sources
