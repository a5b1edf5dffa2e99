// One CHECK per field of two JobRecords that should be the same job as two
// ways of asking give it (a source's listing, and its job() look-up).
#pragma once

#include "catch.hpp"
#include "model/job_record.hpp"

namespace petricore::test {

inline void check_same_record(const model::JobRecord& listed, const model::JobRecord& alone) {
  CAPTURE(listed.job_id);
  CHECK(listed.job_id == alone.job_id);
  CHECK(listed.raw_id == alone.raw_id);
  CHECK(listed.name == alone.name);
  CHECK(listed.state == alone.state);
  CHECK(listed.start == alone.start);
  CHECK(listed.end == alone.end);
  CHECK(listed.alloc_cpus == alone.alloc_cpus);
  CHECK(listed.alloc_mem_mb == alone.alloc_mem_mb);
  CHECK(listed.total_cpu_seconds == alone.total_cpu_seconds);
  CHECK(listed.max_rss_mb == alone.max_rss_mb);
  CHECK(listed.tasks == alone.tasks);
  CHECK(listed.cpus_per_task == alone.cpus_per_task);
}

}  // namespace petricore::test
