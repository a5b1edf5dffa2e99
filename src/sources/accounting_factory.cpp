#include "sources/accounting_factory.hpp"

#include "core/log.hpp"
#include "core/startup_error.hpp"
#include "sources/sacct.hpp"

#include <stdexcept>

namespace petricore::sources {
namespace {

// The sacct to run: the configured path, else "sacct" on PATH.
std::optional<std::string> locate_sacct(const AccountingOptions& options) {
  return find_executable(options.sacct.empty() ? "sacct" : options.sacct);
}

std::unique_ptr<AccountingSource> sacct_source(const AccountingOptions& options, const std::string& path) {
  log::debug("accounting: sacct at " + path);
  return make_sacct_accounting(path, options.sacct_timeout_seconds);
}

}  // namespace

std::unique_ptr<AccountingSource> make_accounting(const AccountingOptions& options, PrometheusClient& prometheus) {
  const std::string& source = options.source;
  if (source == "db") {
    if (!options.db.configured())
      throw StartupError("accounting source db needs [accounting.db] host or socket (--db-host/--db-socket)");
    return make_db_accounting(options.db);
  }
  if (source == "sacct") {
    auto path = locate_sacct(options);
    if (!path)
      throw StartupError(options.sacct.empty()
                             ? "accounting source sacct: sacct not found on PATH"
                             : "accounting source sacct: " + options.sacct + " is not an executable file");
    return sacct_source(options, *path);
  }
  if (source == "prometheus") return make_prometheus_accounting(prometheus);
  if (source != "auto")
    throw StartupError("unknown accounting source '" + source + "' (auto, sacct, db or prometheus)");

  if (options.db.configured()) {
    log::debug("accounting: the DB view (auto)");
    return make_db_accounting(options.db);
  }
  if (auto path = locate_sacct(options)) return sacct_source(options, *path);
  // A configured sacct that is not there is a mistake to report, not a
  // reason to quietly answer from Prometheus.
  if (!options.sacct.empty()) throw StartupError("[accounting] sacct: " + options.sacct + " is not an executable file");
  log::debug("accounting: jobs_info in Prometheus (auto: no DB configured, no sacct)");
  return make_prometheus_accounting(prometheus);
}

}  // namespace petricore::sources
