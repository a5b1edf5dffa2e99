// A finding of the rules (ARCHITECTURE.md §6): a severity, what was seen,
// what to do, the measured value and the threshold.
#pragma once

#include <string>
#include <vector>

namespace petricore::model {

enum class Severity { Info, Warning, Critical };
const char* severity_name(Severity severity);  // "info", "warning", "critical"

struct Finding {
  std::string rule;  // cpu_efficiency, cpu_stability, ...
  Severity severity = Severity::Info;
  std::string message;   // what was seen, one sentence
  std::string advice;    // what to do, one or two sentences
  double value = 0;      // in `unit`
  double threshold = 0;  // in `unit`
  std::string unit;      // "%", "ratio", "MB", "s", "count"
};

// True when any finding is critical or warning (info does not count).
bool has_warning(const std::vector<Finding>& findings);

}  // namespace petricore::model
