// The options every analysis command shares (serve and report): where the
// data comes from and the rule thresholds. Filled from the command line and
// the [prometheus], [accounting], [accounting.db], [ldap] and [rules] sections.
#pragma once

#include "analysis/job_analyzer.hpp"
#include "sources/accounting_factory.hpp"
#include "sources/directory.hpp"
#include "sources/prometheus_client.hpp"

namespace petricore::analysis {

struct AnalysisOptions {
  sources::PrometheusConfig prometheus;
  sources::AccountingOptions accounting;
  sources::LdapConfig ldap;  // ldap.uri empty = no directory
  AnalyzerOptions analyzer;
};

}  // namespace petricore::analysis
