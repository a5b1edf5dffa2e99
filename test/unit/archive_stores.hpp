// Where the job archive's test scenarios run (job_archive_test.cpp,
// archive_efficiency_test.cpp): a fresh SQLite file in a temp directory, or
// a fresh database on the MariaDB server the mariadb suite starts
// (test/integration/mariadb_test.sh sets PETRICORE_TEST_DB_SOCKET).
#pragma once

#include "catch.hpp"

#include "sources/mariadb_library.hpp"
#include "sources/sqlite_library.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace petricore::test {

// A temp directory for one test's database files, removed after it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "petricore-archive.XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::unique_ptr<sources::SqliteDatabase> open_new(const std::string& path) {
  auto db = sources::SqliteDatabase::open(path, true);
  REQUIRE(db);
  return std::move(db.value());
}

class Store {
 public:
  virtual ~Store() = default;
  virtual std::unique_ptr<sources::SqlDatabase> fresh() = 0;
  virtual bool transactional_ddl() const = 0;
  // The names of `table`'s indexes in the database fresh() made last, sorted.
  virtual std::vector<std::string> indexes(sources::SqlDatabase& db, const std::string& table) = 0;
};

inline std::vector<std::string> first_column(sources::SqlDatabase& db, const std::string& sql,
                                             const std::vector<sources::SqlParam>& params) {
  auto rows = db.run(sql, params);
  REQUIRE(rows);
  std::vector<std::string> out;
  for (const sources::SqlRow& row : rows->rows) out.push_back(row[0].value_or(""));
  return out;
}

class SqliteStore final : public Store {
 public:
  std::unique_ptr<sources::SqlDatabase> fresh() override {
    return open_new(dir_.file("a" + std::to_string(++files_) + ".db"));
  }
  bool transactional_ddl() const override { return true; }
  std::vector<std::string> indexes(sources::SqlDatabase& db, const std::string& table) override {
    return first_column(db,
                        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
                        " AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name",
                        {table});
  }

 private:
  TempDir dir_;
  int files_ = 0;
};

inline std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// As root over the server's socket (PETRICORE_TEST_DB_SOCKET), each fresh
// database a new <prefix><n>, dropped first.
class MariaDbStore final : public Store {
 public:
  explicit MariaDbStore(std::string prefix) : prefix_(std::move(prefix)) {}
  static std::unique_ptr<MariaDbStore> from_env(const std::string& prefix) {
    if (env("PETRICORE_TEST_DB_SOCKET").empty()) return nullptr;
    return std::make_unique<MariaDbStore>(prefix);
  }
  std::unique_ptr<sources::SqlDatabase> fresh() override {
    sources::MariaDbTarget target;
    target.socket = env("PETRICORE_TEST_DB_SOCKET");
    target.user = "root";
    auto admin = sources::MariaDbConnection::connect(target);
    REQUIRE(admin);
    name_ = prefix_ + std::to_string(++databases_);
    REQUIRE(admin->run("DROP DATABASE IF EXISTS " + name_));
    REQUIRE(admin->run("CREATE DATABASE " + name_));
    target.database = name_;
    auto db = sources::MariaDbConnection::connect(target);
    REQUIRE(db);
    return std::make_unique<sources::MariaDbConnection>(std::move(db.value()));
  }
  bool transactional_ddl() const override { return false; }
  std::vector<std::string> indexes(sources::SqlDatabase& db, const std::string& table) override {
    return first_column(db,
                        "SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?"
                        " AND TABLE_NAME = ? AND INDEX_NAME <> 'PRIMARY' ORDER BY INDEX_NAME",
                        {name_, table});
  }

 private:
  std::string prefix_;
  std::string name_;
  int databases_ = 0;
};

}  // namespace petricore::test
