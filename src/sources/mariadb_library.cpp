#include "sources/mariadb_library.hpp"

#include "core/shared_library.hpp"

#include <mysql.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace petricore::sources {
namespace {

// Only the functions petricore calls, typed from the library's own header.
#define PETRICORE_MARIADB_FUNCTIONS(X)                \
  X(init, mysql_init)                                 \
  X(close, mysql_close)                               \
  X(options, mysql_options)                           \
  X(real_connect, mysql_real_connect)                 \
  X(error_number, mysql_errno)                        \
  X(error, mysql_error)                               \
  X(real_query, mysql_real_query)                     \
  X(store_result, mysql_store_result)                 \
  X(free_result, mysql_free_result)                   \
  X(field_count, mysql_field_count)                   \
  X(num_fields, mysql_num_fields)                     \
  X(fetch_row, mysql_fetch_row)                       \
  X(fetch_lengths, mysql_fetch_lengths)               \
  X(affected_rows, mysql_affected_rows)               \
  X(stmt_init, mysql_stmt_init)                       \
  X(stmt_prepare, mysql_stmt_prepare)                 \
  X(stmt_param_count, mysql_stmt_param_count)         \
  X(stmt_bind_param, mysql_stmt_bind_param)           \
  X(stmt_execute, mysql_stmt_execute)                 \
  X(stmt_result_metadata, mysql_stmt_result_metadata) \
  X(stmt_store_result, mysql_stmt_store_result)       \
  X(stmt_bind_result, mysql_stmt_bind_result)         \
  X(stmt_fetch, mysql_stmt_fetch)                     \
  X(stmt_fetch_column, mysql_stmt_fetch_column)       \
  X(stmt_affected_rows, mysql_stmt_affected_rows)     \
  X(stmt_error_number, mysql_stmt_errno)              \
  X(stmt_error, mysql_stmt_error)                     \
  X(stmt_close, mysql_stmt_close)

struct MariaDbLibrary {
  PETRICORE_MARIADB_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
};

MariaDbLibrary load() {
  SharedLibrary so("libmariadb.so.3");
  MariaDbLibrary lib{};
  PETRICORE_MARIADB_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  // mysql_library_init is a macro for mysql_server_init. mysql_init would
  // call it too, but not thread-safely: do it once, here.
  const auto server_init = PETRICORE_DLSYM(so, mysql_server_init);
  if (server_init(0, nullptr, nullptr) != 0) throw std::runtime_error("cannot initialise libmariadb.so.3");
  return lib;
}

// Thread-safe (a function-local static); a failed load throws again next time.
const MariaDbLibrary& library() {
  static const MariaDbLibrary lib = load();
  return lib;
}

struct CloseMysql {
  void operator()(MYSQL* m) const { library().close(m); }
};
struct CloseStatement {
  void operator()(MYSQL_STMT* s) const { library().stmt_close(s); }
};
struct FreeResult {
  void operator()(MYSQL_RES* r) const { library().free_result(r); }
};
using MysqlHandle = std::unique_ptr<MYSQL, CloseMysql>;
using StatementHandle = std::unique_ptr<MYSQL_STMT, CloseStatement>;
using ResultHandle = std::unique_ptr<MYSQL_RES, FreeResult>;

const char* or_null(const std::string& s) {
  return s.empty() ? nullptr : s.c_str();
}

}  // namespace

std::string MariaDbTarget::describe() const {
  if (!host.empty()) return "mariadb at " + host + ":" + std::to_string(port);
  return "mariadb at " + (socket.empty() ? std::string("the default socket") : socket);
}

struct MariaDbConnection::Impl {
  MariaDbTarget target;
  MysqlHandle mysql;
  unsigned last_error = 0;

  Error fail(unsigned code, const char* message) {
    last_error = code;
    return unavailable(target.describe() + ": " + message + " (" + std::to_string(code) + ")");
  }
  Error fail_connection() { return fail(library().error_number(mysql.get()), library().error(mysql.get())); }
  Error fail_statement(MYSQL_STMT* s) { return fail(library().stmt_error_number(s), library().stmt_error(s)); }

  Result<SqlResult> run_text(std::string_view sql);
  Result<SqlResult> run_prepared(std::string_view sql, const std::vector<SqlParam>& params);
};

MariaDbConnection::MariaDbConnection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MariaDbConnection::~MariaDbConnection() = default;
MariaDbConnection::MariaDbConnection(MariaDbConnection&&) noexcept = default;
MariaDbConnection& MariaDbConnection::operator=(MariaDbConnection&&) noexcept = default;

unsigned MariaDbConnection::error_code() const {
  return impl_->last_error;
}
const MariaDbTarget& MariaDbConnection::target() const {
  return impl_->target;
}
std::string MariaDbConnection::describe() const {
  return impl_->target.describe();
}
bool MariaDbConnection::last_error_was_duplicate() const {
  return impl_->last_error == mariadb_error::kDuplicateEntry;
}

Result<MariaDbConnection> MariaDbConnection::connect(const MariaDbTarget& target, unsigned* error_code) {
  if (error_code != nullptr) *error_code = 0;
  const MariaDbLibrary* lib = nullptr;
  try {
    lib = &library();
  } catch (const std::exception& e) {
    return unavailable(target.describe() + ": " + e.what());
  }
  auto impl = std::make_unique<Impl>();
  impl->target = target;
  impl->mysql.reset(lib->init(nullptr));
  if (!impl->mysql) return unavailable(target.describe() + ": mysql_init failed (out of memory)");
  MYSQL* m = impl->mysql.get();

  unsigned int seconds = static_cast<unsigned int>(std::max(1.0, std::ceil(target.timeout_seconds)));
  lib->options(m, MYSQL_OPT_CONNECT_TIMEOUT, &seconds);
  lib->options(m, MYSQL_OPT_READ_TIMEOUT, &seconds);
  lib->options(m, MYSQL_OPT_WRITE_TIMEOUT, &seconds);
  // Connector/C takes host "localhost" as the socket; a host given is TCP.
  unsigned int protocol = target.host.empty() ? MYSQL_PROTOCOL_SOCKET : MYSQL_PROTOCOL_TCP;
  lib->options(m, MYSQL_OPT_PROTOCOL, &protocol);
  lib->options(m, MYSQL_SET_CHARSET_NAME, "utf8mb4");

  if (lib->real_connect(m, or_null(target.host), target.user.c_str(), or_null(target.password),
                        or_null(target.database), target.port, target.host.empty() ? or_null(target.socket) : nullptr,
                        0) == nullptr) {
    unsigned code = lib->error_number(m);
    if (error_code != nullptr) *error_code = code;
    return unavailable(target.describe() + " as " + target.user + ": " + lib->error(m) + " (" + std::to_string(code) +
                       ")");
  }
  return MariaDbConnection(std::move(impl));
}

Result<SqlResult> MariaDbConnection::run(std::string_view sql, const std::vector<SqlParam>& params) {
  impl_->last_error = 0;
  return params.empty() ? impl_->run_text(sql) : impl_->run_prepared(sql, params);
}

Result<SqlResult> MariaDbConnection::Impl::run_text(std::string_view sql) {
  const MariaDbLibrary& lib = library();
  MYSQL* m = mysql.get();
  if (lib.real_query(m, sql.data(), static_cast<unsigned long>(sql.size())) != 0) return fail_connection();
  SqlResult out;
  ResultHandle res(lib.store_result(m));
  if (!res) {
    if (lib.field_count(m) != 0) return fail_connection();
    out.affected_rows = lib.affected_rows(m);
    return out;
  }
  unsigned int columns = lib.num_fields(res.get());
  while (MYSQL_ROW row = lib.fetch_row(res.get())) {
    unsigned long* lengths = lib.fetch_lengths(res.get());
    SqlRow values(columns);
    for (unsigned int i = 0; i < columns; ++i)
      if (row[i] != nullptr) values[i] = std::string(row[i], lengths[i]);
    out.rows.push_back(std::move(values));
  }
  return out;
}

Result<SqlResult> MariaDbConnection::Impl::run_prepared(std::string_view sql, const std::vector<SqlParam>& params) {
  const MariaDbLibrary& lib = library();
  StatementHandle stmt(lib.stmt_init(mysql.get()));
  if (!stmt) return fail_connection();
  MYSQL_STMT* s = stmt.get();
  if (lib.stmt_prepare(s, sql.data(), static_cast<unsigned long>(sql.size())) != 0) return fail_statement(s);
  if (lib.stmt_param_count(s) != params.size())
    return unavailable(target.describe() + ": statement has " + std::to_string(lib.stmt_param_count(s)) +
                       " placeholders for " + std::to_string(params.size()) + " parameters");

  // Parameters: the binds point into `params` and these two arrays.
  std::vector<MYSQL_BIND> in(params.size());
  std::vector<long long> integers(params.size());
  std::vector<double> reals(params.size());
  std::vector<unsigned long> in_lengths(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) {
    MYSQL_BIND& b = in[i];
    b = MYSQL_BIND{};
    if (std::holds_alternative<std::nullptr_t>(params[i])) {
      b.buffer_type = MYSQL_TYPE_NULL;
    } else if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
      integers[i] = *n;
      b.buffer_type = MYSQL_TYPE_LONGLONG;
      b.buffer = &integers[i];
    } else if (const auto* x = std::get_if<double>(&params[i])) {
      reals[i] = *x;
      b.buffer_type = MYSQL_TYPE_DOUBLE;
      b.buffer = &reals[i];
    } else {
      const auto* blob = std::get_if<SqlBlob>(&params[i]);
      const std::string& bytes = blob ? blob->bytes : std::get<std::string>(params[i]);
      in_lengths[i] = static_cast<unsigned long>(bytes.size());
      b.buffer_type = blob ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING;
      b.buffer = const_cast<char*>(bytes.data());
      b.buffer_length = in_lengths[i];
      b.length = &in_lengths[i];
    }
  }
  if (lib.stmt_bind_param(s, in.data()) != 0 || lib.stmt_execute(s) != 0) return fail_statement(s);

  SqlResult out;
  ResultHandle meta(lib.stmt_result_metadata(s));
  if (!meta) {
    out.affected_rows = lib.stmt_affected_rows(s);
    return out;
  }
  if (lib.stmt_store_result(s) != 0) return fail_statement(s);

  // Every column as text, into 256-byte buffers; longer values are fetched
  // again, whole, with mysql_stmt_fetch_column.
  const unsigned int columns = lib.num_fields(meta.get());
  constexpr unsigned long kBuffer = 256;
  std::vector<MYSQL_BIND> binds(columns);
  std::vector<std::vector<char>> buffers(columns, std::vector<char>(kBuffer));
  std::vector<unsigned long> lengths(columns);
  std::vector<my_bool> nulls(columns), truncated(columns);
  for (unsigned int i = 0; i < columns; ++i) {
    MYSQL_BIND& b = binds[i];
    b = MYSQL_BIND{};
    b.buffer_type = MYSQL_TYPE_STRING;
    b.buffer = buffers[i].data();
    b.buffer_length = kBuffer;
    b.length = &lengths[i];
    b.is_null = &nulls[i];
    b.error = &truncated[i];
  }
  if (lib.stmt_bind_result(s, binds.data()) != 0) return fail_statement(s);
  for (;;) {
    int rc = lib.stmt_fetch(s);
    if (rc == MYSQL_NO_DATA) break;
    if (rc != 0 && rc != MYSQL_DATA_TRUNCATED) return fail_statement(s);
    SqlRow row(columns);
    for (unsigned int i = 0; i < columns; ++i) {
      if (nulls[i]) continue;
      if (lengths[i] <= kBuffer) {
        row[i] = std::string(buffers[i].data(), lengths[i]);
        continue;
      }
      std::string whole(lengths[i], '\0');
      unsigned long got = 0;
      MYSQL_BIND b{};
      b.buffer_type = MYSQL_TYPE_STRING;
      b.buffer = whole.data();
      b.buffer_length = lengths[i];
      b.length = &got;
      if (lib.stmt_fetch_column(s, &b, i, 0) != 0) return fail_statement(s);
      whole.resize(std::min(got, lengths[i]));
      row[i] = std::move(whole);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace petricore::sources
