// The findings of ARCHITECTURE.md §6: each rule looks at one JobUsage and may
// produce a finding with a severity, a message, concrete advice, the measured
// value and the threshold. Every threshold is configurable ([rules]).
#pragma once

#include "model/finding.hpp"
#include "model/job_usage.hpp"
#include "model/rule_thresholds.hpp"

#include <string>
#include <vector>

namespace petricore::analysis {

std::vector<model::Finding> evaluate_rules(const model::JobUsage& usage, const model::RuleThresholds& thresholds);

}  // namespace petricore::analysis
