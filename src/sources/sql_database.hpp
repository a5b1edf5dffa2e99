// The SQL the job archive's two stores speak (MariaDB, mariadb_library.hpp;
// SQLite, sqlite_library.hpp): one connection that runs one statement at a
// time, parameters bound as values (`?`), never spliced into the text, and
// every column back as bytes. Not for concurrent use: one thread at a time.
#pragma once

#include "core/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace petricore::sources {

// Bytes for a BLOB column, bound as binary (a std::string parameter is text).
struct SqlBlob {
  std::string bytes;
};

// A statement parameter: NULL, an integer, a floating-point number, text or bytes.
using SqlParam = std::variant<std::nullptr_t, std::int64_t, double, std::string, SqlBlob>;
// A result row, each column as the bytes of its text (numbers as the
// database prints them) or of its blob; NULL is nullopt.
using SqlRow = std::vector<std::optional<std::string>>;

struct SqlResult {
  std::vector<SqlRow> rows;  // empty for statements without a result set
  std::uint64_t affected_rows = 0;
};

class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  // Runs one statement (without parameters, a script of statements on
  // SQLite). Unavailable "<describe()>: <the database's message>" on failure.
  virtual Result<SqlResult> run(std::string_view sql, const std::vector<SqlParam>& params = {}) = 0;
  // "sqlite at /var/lib/petricore/archive.db", "mariadb at db1:3306".
  virtual std::string describe() const = 0;
  // Whether the last failed run() broke a unique key (another writer was first).
  virtual bool last_error_was_duplicate() const = 0;
};

}  // namespace petricore::sources
