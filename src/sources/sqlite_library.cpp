#include "sources/sqlite_library.hpp"

#include "core/shared_library.hpp"

#include <sqlite3.h>

#include <cmath>
#include <stdexcept>
#include <variant>

namespace petricore::sources {
namespace {

// Only the functions petricore calls, typed from the library's own header.
#define PETRICORE_SQLITE_FUNCTIONS(X)                     \
  X(open_v2, sqlite3_open_v2)                             \
  X(close_v2, sqlite3_close_v2)                           \
  X(errmsg, sqlite3_errmsg)                               \
  X(extended_errcode, sqlite3_extended_errcode)           \
  X(extended_result_codes, sqlite3_extended_result_codes) \
  X(busy_timeout, sqlite3_busy_timeout)                   \
  X(prepare_v2, sqlite3_prepare_v2)                       \
  X(bind_parameter_count, sqlite3_bind_parameter_count)   \
  X(bind_null, sqlite3_bind_null)                         \
  X(bind_int64, sqlite3_bind_int64)                       \
  X(bind_double, sqlite3_bind_double)                     \
  X(bind_text, sqlite3_bind_text)                         \
  X(bind_blob, sqlite3_bind_blob)                         \
  X(step, sqlite3_step)                                   \
  X(column_count, sqlite3_column_count)                   \
  X(column_type, sqlite3_column_type)                     \
  X(column_blob, sqlite3_column_blob)                     \
  X(column_text, sqlite3_column_text)                     \
  X(column_bytes, sqlite3_column_bytes)                   \
  X(finalize, sqlite3_finalize)                           \
  X(changes, sqlite3_changes)

struct SqliteLibrary {
  PETRICORE_SQLITE_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
};

SqliteLibrary load() {
  SharedLibrary so("libsqlite3.so.0");
  SqliteLibrary lib{};
  PETRICORE_SQLITE_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  return lib;
}

// Thread-safe (a function-local static); a failed load throws again next time.
const SqliteLibrary& library() {
  static const SqliteLibrary lib = load();
  return lib;
}

struct Finalize {
  void operator()(sqlite3_stmt* s) const { library().finalize(s); }
};
using StatementHandle = std::unique_ptr<sqlite3_stmt, Finalize>;

}  // namespace

struct SqliteDatabase::Impl {
  std::string path;
  sqlite3* db = nullptr;
  int last_error = SQLITE_OK;

  ~Impl() {
    if (db != nullptr) library().close_v2(db);
  }
  std::string describe() const { return "sqlite at " + path; }
  Error fail() {
    last_error = library().extended_errcode(db);
    return unavailable(describe() + ": " + library().errmsg(db));
  }
  Result<SqlResult> run_one(sqlite3_stmt* s, const std::vector<SqlParam>& params);
};

SqliteDatabase::SqliteDatabase(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteDatabase::~SqliteDatabase() = default;

std::string SqliteDatabase::describe() const {
  return impl_->describe();
}

bool SqliteDatabase::last_error_was_duplicate() const {
  return impl_->last_error == SQLITE_CONSTRAINT_PRIMARYKEY || impl_->last_error == SQLITE_CONSTRAINT_UNIQUE;
}

Result<std::unique_ptr<SqliteDatabase>> SqliteDatabase::open(const std::string& path, bool create,
                                                             double busy_timeout_seconds) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  const SqliteLibrary* lib = nullptr;
  try {
    lib = &library();
  } catch (const std::exception& e) {
    return unavailable(impl->describe() + ": " + e.what());
  }
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = lib->open_v2(path.c_str(), &impl->db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = impl->db != nullptr ? lib->errmsg(impl->db) : "cannot open";
    return unavailable(impl->describe() + ": " + why);
  }
  lib->extended_result_codes(impl->db, 1);
  lib->busy_timeout(impl->db, static_cast<int>(std::lround(busy_timeout_seconds * 1000)));
  std::unique_ptr<SqliteDatabase> database(new SqliteDatabase(std::move(impl)));
  // The first read of the file: a file that is not a database fails here
  // ("file is not a database"), not at the first query of a request.
  auto mode = database->run("PRAGMA journal_mode=WAL");
  if (!mode) return mode.error();
  if (auto sync = database->run("PRAGMA synchronous=NORMAL"); !sync) return sync.error();
  return database;
}

Result<SqlResult> SqliteDatabase::run(std::string_view sql, const std::vector<SqlParam>& params) {
  const SqliteLibrary& lib = library();
  impl_->last_error = SQLITE_OK;
  SqlResult out;
  // Without parameters the text may hold several statements (a migration):
  // each is prepared and run in turn, the last one's rows returned.
  const char* next = sql.data();
  const char* end = sql.data() + sql.size();
  bool ran = false;
  while (next < end) {
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    if (lib.prepare_v2(impl_->db, next, static_cast<int>(end - next), &raw, &tail) != SQLITE_OK) return impl_->fail();
    StatementHandle statement(raw);
    next = tail;
    if (raw == nullptr) continue;  // white space or a comment
    if (ran && !params.empty()) return unavailable(describe() + ": one statement at a time with parameters");
    ran = true;
    auto result = impl_->run_one(raw, params);
    if (!result) return result.error();
    out = std::move(result.value());
  }
  return out;
}

Result<SqlResult> SqliteDatabase::Impl::run_one(sqlite3_stmt* s, const std::vector<SqlParam>& params) {
  const SqliteLibrary& lib = library();
  if (static_cast<std::size_t>(lib.bind_parameter_count(s)) != params.size())
    return unavailable(describe() + ": statement has " + std::to_string(lib.bind_parameter_count(s)) +
                       " placeholders for " + std::to_string(params.size()) + " parameters");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const int at = static_cast<int>(i) + 1;
    const SqlParam& p = params[i];
    int rc;
    if (std::holds_alternative<std::nullptr_t>(p))
      rc = lib.bind_null(s, at);
    else if (const auto* n = std::get_if<std::int64_t>(&p))
      rc = lib.bind_int64(s, at, *n);
    else if (const auto* x = std::get_if<double>(&p))
      rc = lib.bind_double(s, at, *x);
    else if (const auto* text = std::get_if<std::string>(&p))
      rc = lib.bind_text(s, at, text->data(), static_cast<int>(text->size()), SQLITE_STATIC);
    else
      rc = lib.bind_blob(s, at, std::get<SqlBlob>(p).bytes.data(), static_cast<int>(std::get<SqlBlob>(p).bytes.size()),
                         SQLITE_STATIC);
    if (rc != SQLITE_OK) return fail();
  }
  SqlResult out;
  const int columns = lib.column_count(s);
  for (;;) {
    int rc = lib.step(s);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return fail();
    SqlRow row(static_cast<std::size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      int type = lib.column_type(s, c);
      if (type == SQLITE_NULL) continue;
      // Numbers as their text, blobs and text as their bytes.
      const void* bytes = type == SQLITE_BLOB ? lib.column_blob(s, c) : static_cast<const void*>(lib.column_text(s, c));
      int length = lib.column_bytes(s, c);
      row[static_cast<std::size_t>(c)] = std::string(static_cast<const char*>(bytes), static_cast<std::size_t>(length));
    }
    out.rows.push_back(std::move(row));
  }
  out.affected_rows = static_cast<std::uint64_t>(lib.changes(db));
  return out;
}

}  // namespace petricore::sources
