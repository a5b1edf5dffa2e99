// The [archive] section: where the archive lives (sources/archive_store.hpp)
// and how the archiver fills it (serve's thread and `petricore archive`).
#pragma once

#include "sources/archive_store.hpp"

#include <cstddef>
#include <cstdint>

namespace petricore::archive {

struct ArchiveSettings {
  sources::ArchiveOptions store;
  double interval_seconds = 300;          // serve: seconds between archiver passes
  std::size_t batch = 100;                // jobs asked for, analysed and stored at a time
  std::int64_t lookback_seconds = 3600;   // looked at again behind the watermark each pass
  std::int64_t backfill_seconds = 86400;  // a new archive starts this long ago
};

}  // namespace petricore::archive
