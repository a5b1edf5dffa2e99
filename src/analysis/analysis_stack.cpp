#include "analysis/analysis_stack.hpp"

#include "sources/accounting_factory.hpp"

namespace petricore::analysis {
namespace {

std::unique_ptr<sources::Directory> make_directory(const sources::LdapConfig& ldap,
                                                   AnalysisStack::WithDirectory with_directory) {
  if (with_directory == AnalysisStack::WithDirectory::No || ldap.uri.empty()) return nullptr;
  return sources::make_ldap_directory(ldap);
}

}  // namespace

AnalysisStack::AnalysisStack(const AnalysisOptions& options, WithDirectory with_directory)
    : prometheus(options.prometheus),
      accounting(sources::make_accounting(options.accounting, prometheus)),
      directory(make_directory(options.ldap, with_directory)),
      analyzer(*accounting, prometheus, options.analyzer) {}

}  // namespace petricore::analysis
