// MariaDB for the DB accounting source and init-db. libmariadb.so.3 is loaded
// on first use (core/shared_library.hpp), its function table and MYSQL
// handles stay in the .cpp: the rest of petricore sees a connection that runs
// one statement at a time, prepared whenever it has parameters.
#pragma once

#include "core/result.hpp"
#include "sources/sql_database.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {

// Where to connect and as whom.
struct MariaDbTarget {
  std::string host;  // TCP (even "localhost"); empty = Unix socket
  unsigned port = 3306;
  std::string socket;  // with no host: empty = the client library's default
  std::string user;
  std::string password;        // empty = none (e.g. unix_socket authentication)
  std::string database;        // empty = none
  double timeout_seconds = 5;  // connecting, and each network read and write
  // "mariadb at 127.0.0.1:3306" or "mariadb at /run/mysqld/mysqld.sock".
  std::string describe() const;
};

// Error numbers petricore reacts to (the client's and the server's).
namespace mariadb_error {
constexpr unsigned kAccessDenied = 1045;        // ER_ACCESS_DENIED_ERROR (login refused)
constexpr unsigned kTableAccessDenied = 1142;   // ER_TABLEACCESS_DENIED_ERROR (SELECT denied)
constexpr unsigned kNoSuchGrant = 1141;         // ER_NONEXISTING_GRANT (SHOW GRANTS for an unknown user)
constexpr unsigned kServerGone = 2006;          // CR_SERVER_GONE_ERROR
constexpr unsigned kServerLost = 2013;          // CR_SERVER_LOST
constexpr unsigned kServerLostExtended = 2055;  // CR_SERVER_LOST_EXTENDED
constexpr unsigned kDuplicateEntry = 1062;      // ER_DUP_ENTRY
// The connection is dead (server restarted, idle timeout): reconnecting may help.
inline bool connection_lost(unsigned code) {
  return code == kServerGone || code == kServerLost || code == kServerLostExtended;
}
}  // namespace mariadb_error

// One open connection, closed when destroyed. Not for concurrent use: one
// thread at a time (callers pool or lock).
class MariaDbConnection final : public SqlDatabase {
 public:
  // Unavailable "<describe> as <user>: <reason>" when the library cannot be
  // loaded or the server refuses; `error_code`, when given, receives the
  // error number (0 when the library itself failed to load).
  static Result<MariaDbConnection> connect(const MariaDbTarget& target, unsigned* error_code = nullptr);

  ~MariaDbConnection() override;
  MariaDbConnection(MariaDbConnection&&) noexcept;
  MariaDbConnection& operator=(MariaDbConnection&&) noexcept;
  MariaDbConnection(const MariaDbConnection&) = delete;
  MariaDbConnection& operator=(const MariaDbConnection&) = delete;

  // Runs one statement. With parameters it is prepared and they are bound as
  // values, never spliced into the text; without, it is sent as text (for
  // SHOW GRANTS and DDL built from validated identifiers). Every column comes
  // back as text. Unavailable "<describe>: <server's message> (<number>)" on
  // failure, and error_code() tells the number.
  Result<SqlResult> run(std::string_view sql, const std::vector<SqlParam>& params = {}) override;
  std::string describe() const override;
  bool last_error_was_duplicate() const override;

  // The error number of the last failed run(), 0 after a success.
  unsigned error_code() const;
  const MariaDbTarget& target() const;

 private:
  struct Impl;
  explicit MariaDbConnection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace petricore::sources
