// One job's report: what it used, the findings on it and the thresholds they
// were judged by. The analysis makes it; the renderers and the caches read it.
#pragma once

#include "model/finding.hpp"
#include "model/job_usage.hpp"
#include "model/rule_thresholds.hpp"

#include <vector>

namespace petricore::model {

struct JobReport {
  JobUsage usage;
  std::vector<Finding> findings;
  bool warning = false;  // has_warning(findings)
  // The thresholds the findings were evaluated with ([rules]): renderers
  // draw and print the same levels (the JSON's lowest_expected_usage, the
  // charts' dashed line).
  RuleThresholds thresholds;
  // True once no later sample can change the report: the job ended more than
  // the query's after-end stretch before it was analysed (a cache may keep
  // it for good).
  bool settled = false;
};

}  // namespace petricore::model
