// What the fleet view costs over a big archive (README.md, "Fleet efficiency
// benchmark"): an archive of synthetic finished jobs over one year (500
// users in 50 accounts, 5 partitions, 10 % with GPUs, 20 % with findings,
// 3 % analysed three times, and one heavy user with 10,000 jobs in the last
// 30 days), each record's JSON one of the test's sample jobs'
// (test/unit/sample_jobs.hpp) as the archive keeps it, no series; then
// sources::fleet_efficiency timed by account over 90 days (the first query
// on a new connection, the first after the file left the page cache, and
// warm), by user and by partition, and the heavy user's 30-day digest. Not
// a test: it prints figures and asserts nothing.
//
//   efficiency_bench [--jobs N] [--dir DIR] [--keep] [--reuse]
//       SQLite: fills DIR/efficiency.db (default: a temp dir, removed after
//       unless --keep; --reuse queries the file a --keep run left).
//   efficiency_bench --mariadb SOCKET [--database NAME] [--jobs N] [--fill-only | --query-only]
//       MariaDB as root over SOCKET (efficiency_bench_mariadb.sh starts one).
#include "analysis/archive_record.hpp"
#include "core/deflate.hpp"
#include "render/job_render.hpp"
#include "sample_jobs.hpp"
#include "sources/archive_dictionary.hpp"
#include "sources/archive_efficiency.hpp"
#include "sources/archive_schema.hpp"
#include "sources/job_archive.hpp"
#include "sources/mariadb_library.hpp"
#include "sources/sqlite_library.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace petricore;
using namespace petricore::sources;

namespace {

constexpr std::int64_t kNow = 1'800'000'000;
constexpr std::int64_t kDay = 86'400;
constexpr std::int64_t kYear = 365 * kDay;
constexpr int kUsers = 500;
constexpr int kAccounts = 50;
constexpr int kHeavyJobs = 10'000;  // the heavy user's, in the last 30 days
constexpr std::size_t kRowsPerInsert = 100;
const char* const kCluster = "bench";
const char* const kRules[] = {
    "core_imbalance",       "cpu_efficiency",      "cpu_stability",      "gpu_efficiency",       "gpu_memory_low",
    "gpu_unused",           "job_state",           "memory_near_limit",  "memory_overallocated", "scratch_unused",
    "serial_on_many_cores", "small_io_many_files", "time_overrequested", "too_many_threads"};
constexpr int kRuleCount = sizeof(kRules) / sizeof(kRules[0]);

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_size) : 0;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "efficiency_bench: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T must(Result<T> r, const char* what) {
  if (!r) fail(std::string(what) + ": " + r.error().message);
  return std::move(*r);
}

// The JSON of the sample jobs as the archive keeps it (zlib), each record
// taking one in turn: real sizes, not made-up bytes.
std::vector<std::string> sample_json_blobs() {
  std::vector<std::string> out;
  for (const model::JobReport& report :
       {test::four_node_job(), test::gpu_training_job(), test::page_cache_job(), test::accounting_only_job()}) {
    model::ArchivedJob record = analysis::archive_record(report, render::job_json(report), kNow);
    out.push_back(deflate_with_dictionary(record.usage_json, 9, sources::archive_json_dictionary()));
  }
  return out;
}

// Fills the archive with `jobs` synthetic jobs ending over the year before
// kNow, in the order they ended (as the archiver stores them). Returns the rows written.
std::size_t fill(SqlDatabase& db, int jobs, bool one_transaction) {
  must(migrate_archive(db), "migrating");
  std::vector<std::int64_t> bit(kRuleCount);
  for (int r = 0; r < kRuleCount; ++r) bit[r] = std::int64_t{1} << must(finding_bit(db, kRules[r]), "bits").value();
  const std::vector<std::string> blobs = sample_json_blobs();
  const char* const partitions[] = {"cpu", "bigmem", "short", "long"};
  const int cpus[] = {1, 2, 4, 8, 16, 32, 64, 128};
  const double mem_mb[] = {4000, 8000, 16000, 64000, 256000};
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  // About this many jobs end in the last 30 days; the heavy user has kHeavyJobs of them.
  const double recent = jobs * 30.0 / 365;
  const double heavy_share = std::min(1.0, kHeavyJobs / recent);

  std::string insert_one = "(?";
  for (int i = 1; i < 37; ++i) insert_one += ", ?";
  insert_one += ")";
  const std::string head =
      "INSERT INTO archived_jobs (cluster, job_id, version, display_id, name, user_name, uid, account,"
      " partition_name, state, submit_time, start_time, end_time, time_limit_s, alloc_cpus, alloc_mem_mb,"
      " alloc_nodes, node_list, alloc_gpus, cpu_time_s, memory_resident_mb, gpu_utilization_mean, findings,"
      " warning, from_metrics, archived_at, usage_json_z, series, latest, finding_mask, core_s, core_s_known,"
      " core_s_wasted, mem_mb_s_requested, mem_mb_s_used, gpu_s, gpu_s_idle) VALUES ";
  std::vector<SqlParam> params;
  std::size_t rows_in_statement = 0, rows = 0;
  auto flush = [&]() {
    if (rows_in_statement == 0) return;
    std::string sql = head;
    for (std::size_t i = 0; i < rows_in_statement; ++i) sql += (i ? ", " : "") + insert_one;
    must(db.run(sql, params), "inserting");
    params.clear();
    rows_in_statement = 0;
  };
  if (one_transaction) must(db.run("BEGIN"), "BEGIN");
  for (int k = 0; k < jobs; ++k) {
    const std::int64_t job_id = 1'000'000 + k;
    const std::int64_t end = kNow - kYear + static_cast<std::int64_t>((k + u(rng)) * kYear / jobs);
    const bool heavy = end >= kNow - 30 * kDay && u(rng) < heavy_share;
    const int user = static_cast<int>(u(rng) * kUsers);
    const std::string user_name = heavy ? "heavy" : "user" + std::to_string(user);
    const std::string account = "acct" + std::to_string(heavy ? 0 : user % kAccounts);
    const bool gpu = u(rng) < 0.10;
    const std::string partition = gpu ? "gpu" : partitions[static_cast<int>(u(rng) * 4)];
    const int alloc_cpus = cpus[static_cast<int>(u(rng) * 8)];
    const std::int64_t elapsed = static_cast<std::int64_t>(60 * std::exp(u(rng) * std::log(2880.0)));
    const bool started = u(rng) >= 0.01;
    const double alloc_mem = mem_mb[static_cast<int>(u(rng) * 5)];
    const int gpus = gpu ? 1 << static_cast<int>(u(rng) * 4) : 0;
    std::string findings;
    std::int64_t mask = 0;
    if (u(rng) < 0.20) {
      const int count = 1 + static_cast<int>(u(rng) * 3);
      for (int f = 0; f < count; ++f) {
        const int r = static_cast<int>(u(rng) * kRuleCount);
        if (mask & bit[r]) continue;
        mask |= bit[r];
        findings += (findings.empty() ? "" : ",") + std::string(kRules[r]) + ":warning";
      }
    }
    const int versions = u(rng) < 0.03 ? 3 : 1;
    for (int v = 1; v <= versions; ++v) {
      // The facts that make the figures, as store takes them.
      model::ArchivedJob facts;
      facts.job.start = started ? std::optional<std::int64_t>(end - elapsed) : std::nullopt;
      facts.job.end = end;
      facts.job.alloc_cpus = alloc_cpus;
      facts.job.alloc_mem_mb = alloc_mem;
      facts.job.alloc_gpus = gpus;
      if (u(rng) < 0.95) facts.cpu_time_seconds = started ? alloc_cpus * elapsed * u(rng) : 0.0;
      if (u(rng) < 0.95) facts.memory_resident_mb = alloc_mem * (0.05 + 0.85 * u(rng));
      if (gpu && u(rng) < 0.8) facts.gpu_utilization_mean = 100 * u(rng);
      const JobFigures f = job_figures(facts);
      auto maybe = [](const std::optional<double>& x) { return x ? SqlParam(*x) : SqlParam(nullptr); };
      params.insert(params.end(), {std::string(kCluster),
                                   job_id,
                                   std::int64_t{v},
                                   std::to_string(job_id),
                                   std::string("synthetic"),
                                   user_name,
                                   std::int64_t{10'000 + user},
                                   account,
                                   partition,
                                   std::string(started ? "COMPLETED" : "CANCELLED"),
                                   end - elapsed - 600,
                                   started ? SqlParam(end - elapsed) : SqlParam(nullptr),
                                   end,
                                   std::int64_t{2 * kDay},
                                   std::int64_t{alloc_cpus},
                                   alloc_mem,
                                   std::int64_t{1},
                                   std::string("node") + std::to_string(k % 1000),
                                   std::int64_t{gpus},
                                   maybe(facts.cpu_time_seconds),
                                   maybe(facts.memory_resident_mb),
                                   maybe(facts.gpu_utilization_mean),
                                   findings,
                                   std::int64_t{findings.empty() ? 0 : 1},
                                   std::int64_t{1},
                                   end + 300 + v * kDay,
                                   SqlBlob{blobs[static_cast<std::size_t>(k) % blobs.size()]},
                                   nullptr,
                                   std::int64_t{v == versions ? 1 : 0},
                                   mask,
                                   f.core_s,
                                   f.core_s_known,
                                   f.core_s_wasted,
                                   f.mem_mb_s_requested,
                                   f.mem_mb_s_used,
                                   f.gpu_s,
                                   f.gpu_s_idle});
      ++rows;
      if (++rows_in_statement == kRowsPerInsert) flush();
    }
    if (!one_transaction && k % 50'000 == 49'999) {
      flush();
      must(db.run("COMMIT"), "COMMIT");
      must(db.run("BEGIN"), "BEGIN");
    }
  }
  flush();
  must(db.run("COMMIT"), "COMMIT");
  return rows;
}

// The share of `path`'s pages in the page cache.
double resident_share(const std::string& path) {
  const long size = file_size(path);
  if (size <= 0) return 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  void* map = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> in((static_cast<std::size_t>(size) + page - 1) / page);
  double share = 0;
  if (::mincore(map, static_cast<std::size_t>(size), in.data()) == 0)
    share = static_cast<double>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; })) /
            static_cast<double>(in.size());
  ::munmap(map, static_cast<std::size_t>(size));
  return share;
}

// Takes the file out of the page cache: drop_caches where this process may
// (root outside a container), else posix_fadvise(DONTNEED) on the file,
// which any owner may. Says which, and what stayed.
std::string drop_from_page_cache(const std::string& path) {
  ::sync();
  std::string how;
  if (FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w")) {
    if (std::fputs("3\n", f) >= 0 && std::fclose(f) == 0) how = "drop_caches";
  }
  if (how.empty()) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ::fdatasync(fd);
      if (::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0) how = "posix_fadvise DONTNEED (drop_caches refused)";
      ::close(fd);
    }
  }
  char line[160];
  std::snprintf(line, sizeof line, "%s, %.1f %% of the file still cached", how.empty() ? "not dropped" : how.c_str(),
                100 * resident_share(path));
  return line;
}

double time_one(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return seconds_since(t0) * 1000;
}

double median_ms(int runs, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(time_one(f));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

EfficiencyQuery query(model::EfficiencyGrouping by, std::int64_t days, std::optional<std::string> user = {}) {
  EfficiencyQuery q;
  q.by = by;
  q.since = kNow - days * kDay;
  q.until = kNow;
  q.user = std::move(user);
  return q;
}

model::FleetEfficiency run(SqlDatabase& db, const EfficiencyQuery& q) {
  return must(fleet_efficiency(db, kCluster, q), "fleet_efficiency");
}

void print_result(const char* what, const model::FleetEfficiency& f) {
  std::printf("  %s: %lld jobs in %zu groups, %.0f core-hours allocated, %.1f %% efficiency, %zu points, %zu findings",
              what, static_cast<long long>(f.total.jobs), f.groups.size(), f.total.core_hours_allocated,
              f.total.cpu_efficiency_percent.value_or(-1), f.over_time.size(), f.total.jobs_by_finding.size());
  if (!f.worst_jobs.empty())
    std::printf(", worst job %s (%.0f core-hours wasted)", f.worst_jobs[0].display_id.c_str(),
                f.worst_jobs[0].core_hours_wasted);
  std::printf("\n");
}

// The same counts of jobs per finding read from the findings text (LIKE),
// for comparison with the masks: the text is not in the covering index.
void time_findings_text(SqlDatabase& db) {
  std::string sql = "SELECT account";
  std::vector<SqlParam> params;
  for (const char* rule : kRules) {
    sql += ", SUM(CASE WHEN findings LIKE ? ESCAPE '!' OR findings LIKE ? ESCAPE '!' THEN 1 ELSE 0 END)";
    std::string escaped;
    for (const char* c = rule; *c; ++c) escaped += (*c == '_' ? "!_" : std::string(1, *c));
    params.emplace_back(escaped + ":%");
    params.emplace_back("%," + escaped + ":%");
  }
  sql += " FROM archived_jobs WHERE cluster = ? AND latest = 1 AND end_time >= ? AND end_time < ? GROUP BY account";
  params.emplace_back(std::string(kCluster));
  params.emplace_back(kNow - 90 * kDay);
  params.emplace_back(kNow);
  const double first = time_one([&] { must(db.run(sql, params), "findings text"); });
  const double warm = median_ms(3, [&] { must(db.run(sql, params), "findings text"); });
  std::printf("jobs per finding from the text (14 rules x LIKE, by account, 90 days): first %.0f ms, warm %.0f ms\n",
              first, warm);
}

void print_plan(SqlDatabase& db, bool sqlite) {
  const std::string sql = std::string(sqlite ? "EXPLAIN QUERY PLAN " : "EXPLAIN ") +
                          "SELECT account, COUNT(*), SUM(core_s), SUM(cpu_time_s), SUM((finding_mask >> 3) & 1)"
                          " FROM archived_jobs" +
                          std::string(sqlite ? "" : " FORCE INDEX (archived_jobs_window)") +
                          " WHERE cluster = ? AND latest = 1 AND end_time >= ? AND end_time < ? GROUP BY account";
  auto plan = db.run(sql, {std::string(kCluster), kNow - 90 * kDay, kNow});
  if (!plan) return;
  std::printf("plan of the sums:");
  for (const SqlRow& row : plan->rows) {
    std::printf("\n ");
    for (const auto& column : row) std::printf(" %s", column.value_or("NULL").c_str());
  }
  std::printf("\n");
}

// Every timing after the fill. `reopen` gives a new connection; `drop`
// takes the archive out of every cache it can and says what it did.
void time_queries(const std::function<std::unique_ptr<SqlDatabase>()>& reopen, const std::function<std::string()>& drop,
                  bool sqlite) {
  const EfficiencyQuery by_account = query(model::EfficiencyGrouping::Account, 90);
  const std::string dropped = drop();
  {
    auto db = reopen();
    model::FleetEfficiency f;
    const double cold = time_one([&] { f = run(*db, by_account); });
    std::printf("by account, 90 days, first query (%s): %.0f ms\n", dropped.c_str(), cold);
    print_result("by account", f);
  }
  {
    auto db = reopen();
    const double first = time_one([&] { run(*db, by_account); });
    std::printf("by account, 90 days, first query on a new connection (caches warm): %.0f ms\n", first);
    std::printf("by account, 90 days, warm: median %.0f ms of 5\n", median_ms(5, [&] { run(*db, by_account); }));
    for (auto [by, name] : {std::pair{model::EfficiencyGrouping::User, "user"},
                            std::pair{model::EfficiencyGrouping::Partition, "partition"}}) {
      const EfficiencyQuery q = query(by, 90);
      model::FleetEfficiency f;
      const double once = time_one([&] { f = run(*db, q); });
      std::printf("by %s, 90 days: first %.0f ms, warm median %.0f ms of 3\n", name, once,
                  median_ms(3, [&] { run(*db, q); }));
      print_result(name, f);
    }
    const EfficiencyQuery year = query(model::EfficiencyGrouping::Account, 365);
    std::printf("by account, 365 days: first %.0f ms, warm median %.0f ms of 3\n", time_one([&] { run(*db, year); }),
                median_ms(3, [&] { run(*db, year); }));
    time_findings_text(*db);
    print_plan(*db, sqlite);
  }
  // The heavy user's digest: their sums and the list of their jobs.
  const EfficiencyQuery digest = query(model::EfficiencyGrouping::Account, 30, "heavy");
  const std::string dropped_again = drop();
  auto db = reopen();
  JobArchive archive(*db, kCluster);
  model::FleetEfficiency f;
  const double cold = time_one([&] { f = run(*db, digest); });
  std::printf("heavy user, 30 days, sums: first (%s): %.0f ms, warm median %.0f ms of 5\n", dropped_again.c_str(), cold,
              median_ms(5, [&] { run(*db, digest); }));
  print_result("heavy user", f);
  std::size_t listed = 0;
  const double list_first = time_one(
      [&] { listed = must(archive.jobs_of_user("heavy", kNow - 30 * kDay, kNow, 10'000), "jobs_of_user").size(); });
  std::printf("heavy user, 30 days, jobs_of_user (%zu jobs, no JSON): first %.0f ms, warm median %.0f ms of 3\n",
              listed, list_first, median_ms(3, [&] {
                must(archive.jobs_of_user("heavy", kNow - 30 * kDay, kNow, 10'000), "jobs_of_user");
              }));
}

// What storing one more job costs in the big archive, each store its own
// transaction as the archiver makes them: the time, and the WAL bytes
// (whole pages) it writes.
void time_stores(const std::string& path) {
  constexpr int kStores = 200;
  auto db = must(SqliteDatabase::open(path, false), "opening");
  must(db->run("PRAGMA wal_checkpoint(TRUNCATE)"), "checkpoint");
  must(db->run("PRAGMA wal_autocheckpoint = 0"), "checkpoint");  // every frame stays to be counted
  const std::int64_t first_id =
      std::atoll(must(db->run("SELECT MAX(job_id) FROM archived_jobs"), "ids").rows[0][0].value_or("0").c_str()) + 1;
  const std::int64_t page = std::atoll(must(db->run("PRAGMA page_size"), "page size").rows[0][0].value_or("0").c_str());
  JobArchive archive(*db, kCluster);
  model::ArchivedJob job =
      analysis::archive_record(test::accounting_only_job(), render::job_json(test::accounting_only_job()), kNow);
  job.job.end = kNow + kDay;  // after every window the queries read
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kStores; ++i) {
    job.job.raw_id = job.job.job_id = std::to_string(first_id + i);
    must(archive.store(job), "storing");
  }
  const double ms = seconds_since(t0) * 1000 / kStores;
  // wal_checkpoint(PASSIVE): busy, frames in the WAL, frames checkpointed.
  auto frames = must(db->run("PRAGMA wal_checkpoint(PASSIVE)"), "checkpoint");
  const double wal_bytes = std::atof(frames.rows[0][1].value_or("0").c_str()) * static_cast<double>(page) / kStores;
  std::printf("one more job stored (its own transaction): %.2f ms, %.0f kB of WAL (%lld B pages)\n", ms,
              wal_bytes / 1000, static_cast<long long>(page));
}

void sqlite_bench(int jobs, std::string dir, bool keep, bool reuse) {
  bool temp = false;
  if (dir.empty()) {
    char pattern[] = "/tmp/petricore-efficiency-bench.XXXXXX";
    if (::mkdtemp(pattern) == nullptr) fail("cannot make a temp dir");
    dir = pattern;
    temp = true;
  }
  const std::string path = dir + "/efficiency.db";
  if (!reuse) {
    ::unlink(path.c_str());
    ::unlink((path + "-wal").c_str());
    ::unlink((path + "-shm").c_str());
    auto db = must(SqliteDatabase::open(path, true), "opening");
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t rows = fill(*db, jobs, true);
    std::printf("page size %s B\n", must(db->run("PRAGMA page_size"), "page size").rows[0][0].value_or("?").c_str());
    must(db->run("PRAGMA wal_checkpoint(TRUNCATE)"), "checkpoint");
    const double took = seconds_since(t0);
    const long size = file_size(path);
    std::printf("sqlite: %d jobs (%zu rows with the re-analyses) filled in %.1f s (%.0f rows/s), one transaction\n",
                jobs, rows, took, rows / took);
    std::printf("archive: %.1f MB, %ld B per job (records without series, indexes, pages and all)\n", size / 1e6,
                size / jobs);
    if (auto parts = db->run("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")) {
      for (const SqlRow& row : parts->rows)
        std::printf("  %-34s %7.1f MB  %5.0f B per job\n", row[0].value_or("").c_str(),
                    std::atof(row[1].value_or("0").c_str()) / 1e6, std::atof(row[1].value_or("0").c_str()) / jobs);
    }
  }
  time_queries([&] { return std::unique_ptr<SqlDatabase>(must(SqliteDatabase::open(path, false), "opening")); },
               [&] { return drop_from_page_cache(path); }, true);
  time_stores(path);
  if (temp && !keep) std::filesystem::remove_all(dir);
  if (keep || !temp) std::printf("(archive kept at %s)\n", path.c_str());
}

void mariadb_bench(int jobs, const std::string& socket, const std::string& database, bool fill_it, bool query_it) {
  MariaDbTarget target;
  target.socket = socket;
  target.user = "root";
  target.timeout_seconds = 600;
  if (fill_it) {
    auto admin = must(MariaDbConnection::connect(target), "connecting");
    must(admin.run("DROP DATABASE IF EXISTS " + database), "dropping");
    must(admin.run("CREATE DATABASE " + database), "creating");
    target.database = database;
    auto db = must(MariaDbConnection::connect(target), "connecting");
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t rows = fill(db, jobs, false);
    const double took = seconds_since(t0);
    std::printf("mariadb: %d jobs (%zu rows) filled in %.1f s (%.0f rows/s), a transaction per 50,000 jobs\n", jobs,
                rows, took, rows / took);
    must(db.run("ANALYZE TABLE archived_jobs"), "analyze");
    auto size = db.run(
        "SELECT SUM(DATA_LENGTH), SUM(INDEX_LENGTH) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", {database});
    if (size && !size->rows.empty()) {
      const double data = std::atof(size->rows[0][0].value_or("0").c_str());
      const double index = std::atof(size->rows[0][1].value_or("0").c_str());
      std::printf("archive: data %.1f MB + indexes %.1f MB: %.0f B per job (InnoDB's estimate)\n", data / 1e6,
                  index / 1e6, (data + index) / jobs);
    }
  }
  if (!query_it) return;
  target.database = database;
  // A fresh server's empty buffer pool is what "cold" means here:
  // efficiency_bench_mariadb.sh restarts the server between --fill-only and
  // --query-only (InnoDB reads its files with O_DIRECT, past the page cache).
  bool first = true;
  time_queries(
      [&] {
        return std::unique_ptr<SqlDatabase>(
            new MariaDbConnection(must(MariaDbConnection::connect(target), "connecting")));
      },
      [&] {
        const bool fresh = first && !fill_it;
        first = false;
        return std::string(fresh ? "a server just started, buffer pool empty"
                                 : "buffer pool as the queries before left it");
      },
      false);
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = 1'000'000;
  std::string dir, socket, database = "petricore_efficiency_bench";
  bool keep = false, reuse = false, fill_only = false, query_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--jobs" && has_value)
      jobs = std::atoi(argv[++i]);
    else if (arg == "--dir" && has_value)
      dir = argv[++i];
    else if (arg == "--mariadb" && has_value)
      socket = argv[++i];
    else if (arg == "--database" && has_value)
      database = argv[++i];
    else if (arg == "--keep")
      keep = true;
    else if (arg == "--reuse")
      reuse = true;
    else if (arg == "--fill-only")
      fill_only = true;
    else if (arg == "--query-only")
      query_only = true;
    else
      fail(
          "usage: efficiency_bench [--jobs N] [--dir DIR] [--keep] [--reuse] | --mariadb SOCKET [--database NAME] "
          "[--jobs N] [--fill-only | --query-only]");
  }
  if (jobs < 1000) fail("--jobs: at least 1000");
  if (socket.empty())
    sqlite_bench(jobs, dir, keep, reuse);
  else
    mariadb_bench(jobs, socket, database, !query_only, !fill_only);
  return 0;
}
