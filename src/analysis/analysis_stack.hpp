// The sources and the analyzer that serve and report build from the same
// AnalysisOptions, assembled in one place: the Prometheus client, the
// accounting source chosen by [accounting], the LDAP directory when [ldap]
// names one, and the JobAnalyzer reading the first two.
#pragma once

#include "analysis/analysis_options.hpp"
#include "analysis/job_analyzer.hpp"
#include "sources/accounting.hpp"
#include "sources/directory.hpp"
#include "sources/prometheus_client.hpp"

#include <memory>

namespace petricore::analysis {

struct AnalysisStack {
  // Whether to build the directory: report looks its recipients up only when
  // it sends mail, and builds its own then.
  enum class WithDirectory { No, Yes };

  // Builds the parts in the order below; each throws what its own factory
  // does (StartupError for bad options, std::runtime_error when a
  // library cannot be loaded), so the first bad setting is the one named.
  AnalysisStack(const AnalysisOptions& options, WithDirectory with_directory);
  AnalysisStack(const AnalysisStack&) = delete;  // the parts refer to each other
  AnalysisStack& operator=(const AnalysisStack&) = delete;

  sources::PrometheusClient prometheus;
  std::unique_ptr<sources::AccountingSource> accounting;  // never null
  std::unique_ptr<sources::Directory> directory;          // null without [ldap] uri or when skipped
  JobAnalyzer analyzer;                                   // reads `accounting` and `prometheus`
};

}  // namespace petricore::analysis
