#include "model/finding.hpp"

#include <algorithm>

namespace petricore::model {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::Critical:
      return "critical";
    case Severity::Warning:
      return "warning";
    case Severity::Info:
      return "info";
  }
  return "info";
}

bool has_warning(const std::vector<Finding>& findings) {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) {
    return f.severity == Severity::Critical || f.severity == Severity::Warning;
  });
}

}  // namespace petricore::model
