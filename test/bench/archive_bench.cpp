// What one job costs in the job archive (see README.md, "Job archive"): the
// sample jobs of the tests (test/unit/sample_jobs.hpp) rendered as the API
// renders them, turned into archive records, and stored N times each in a
// real SQLite file, whose size per job is the figure (indexes, pages and
// all). Not a test: it prints figures and asserts nothing.
//
//   archive_bench [--jobs N] [--dir DIR]      (default 2000 jobs, a temp dir)
#include "analysis/archive_record.hpp"
#include "render/job_render.hpp"
#include "sample_jobs.hpp"
#include "sources/archive_schema.hpp"
#include "sources/job_archive.hpp"
#include "sources/sqlite_library.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace petricore;

namespace {

long file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_size) : 0;
}

struct Case {
  const char* name;
  model::JobReport report;
};

}  // namespace

int main(int argc, char** argv) {
  int jobs = 2000;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--jobs") == 0) jobs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--dir") == 0) dir = argv[i + 1];
  }
  if (dir.empty()) {
    char pattern[] = "/tmp/petricore-archive-bench.XXXXXX";
    dir = ::mkdtemp(pattern);
  }
  std::vector<Case> cases = {{"4 nodes x 8 cores, 1 h, 15 s steps", test::four_node_job()},
                             {"GPU training job, 2 GPUs", test::gpu_training_job()},
                             {"page cache job", test::page_cache_job()},
                             {"accounting only", test::accounting_only_job()}};
  std::printf("%-38s %10s %10s %14s %14s\n", "job", "JSON B", "series B", "no series B/job", "with series B/job");
  for (const Case& c : cases) {
    model::ArchivedJob record = analysis::archive_record(c.report, render::job_json(c.report), 1'800'000'000);
    long per_job[2] = {0, 0};
    for (int with_series = 0; with_series < 2; ++with_series) {
      const std::string path = dir + "/bench-" + std::to_string(with_series) + ".db";
      ::unlink(path.c_str());
      auto db = sources::SqliteDatabase::open(path, true);
      if (!db || !sources::migrate_archive(**db)) {
        std::fprintf(stderr, "archive_bench: cannot create %s\n", path.c_str());
        return 1;
      }
      long empty = file_size(path) + file_size(path + "-wal");
      sources::JobArchive archive(**db, "bench");
      model::ArchivedJob r = record;
      if (!with_series) r.series.clear();
      (*db)->run("BEGIN");
      for (int i = 0; i < jobs; ++i) {
        r.job.raw_id = r.job.job_id = std::to_string(1'000'000 + i);
        r.job.end = 1'800'000'000 - i;
        if (!archive.store(r)) return 1;
      }
      (*db)->run("COMMIT");
      (*db)->run("PRAGMA wal_checkpoint(TRUNCATE)");
      per_job[with_series] = (file_size(path) + file_size(path + "-wal") - empty) / jobs;
    }
    std::printf("%-38s %10zu %10zu %14ld %14ld\n", c.name, record.usage_json.size(), record.series.size(), per_job[0],
                per_job[1]);
  }
  std::printf("(%d jobs each in %s; targets: <= 2048 B/job without series, <= 20480 B/job with)\n", jobs, dir.c_str());
  return 0;
}
