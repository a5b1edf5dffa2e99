// `petricore archive`: fills the job archive from the command line, for a
// backfill (`--since 2026-01-01`) and for sites that run no `serve` (a timer
// running `petricore archive` alone, which carries on from the archive's
// watermark as serve's archiver does).
#pragma once

#include "analysis/analysis_options.hpp"
#include "archive/archive_options.hpp"

#include <string>

namespace petricore::archive {

struct ArchiveCommandOptions {
  analysis::AnalysisOptions analysis;
  ArchiveSettings settings;
  std::string since;   // core/time_text.hpp forms; empty = from the watermark
  std::string until;   // empty = now less the settle time
  bool quiet = false;  // no progress lines
};

// 0 done; 2 bad input (options, dates, a database newer than this
// petricore); 1 a source or the archive failed (what was stored stays).
int run_archive(const ArchiveCommandOptions& options);

}  // namespace petricore::archive
