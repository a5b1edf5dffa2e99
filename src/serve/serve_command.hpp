// `petricore serve`: the HTTP API and pages (ARCHITECTURE.md §5).
#pragma once

#include "analysis/analysis_options.hpp"
#include "archive/archive_options.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace petricore::serve {

struct ServeOptions {
  analysis::AnalysisOptions analysis;
  std::string listen = "127.0.0.1:8080";  // HOST:PORT
  std::string public_url;                 // base of links in pages and mail; default from the Host header
  std::string auth = "none";              // none | header
  std::string auth_header = "X-Remote-User";
  std::vector<std::string> trusted_proxies{"127.0.0.1", "::1"};  // addresses allowed to set auth_header
  std::vector<std::string> admins;                               // user names that read everything
  std::string admin_group;                                       // LDAP group whose members read everything
  std::vector<std::string> account_managers;                     // "ACCOUNT:USER": USER reads ACCOUNT's jobs
  std::size_t threads = 2;                                       // I/O threads
  std::size_t workers = 4;                // threads for blocking work (Prometheus, DB, LDAP, sacct)
  std::size_t cache_entries = 1000;       // finished jobs' results kept
  std::size_t cache_mb = 256;             // ... and the memory they may hold (samples for charts)
  std::size_t rendered_cache_mb = 64;     // finished jobs' drawn charts, PDFs and pages
  std::size_t max_request_bytes = 16384;  // request line + headers
  std::size_t max_header_count = 64;
  double idle_timeout_seconds = 30;
  std::size_t max_connections = 0;    // open at once; 0 = from the open-file limit
  std::size_t user_recent_jobs = 20;  // jobs in /api/v1/users/<u>'s summary
  archive::ArchiveSettings archive;   // [archive]: the job archive and its archiver
};

// Validates (throws StartupError with a one-line message: main turns it into
// exit 2), serves until SIGTERM or
// SIGINT, then finishes the requests in flight and returns 0.
int run_serve(const ServeOptions& options);

}  // namespace petricore::serve
