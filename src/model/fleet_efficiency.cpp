#include "model/fleet_efficiency.hpp"

namespace petricore::model {

const char* grouping_name(EfficiencyGrouping by) {
  switch (by) {
    case EfficiencyGrouping::User:
      return "user";
    case EfficiencyGrouping::Account:
      return "account";
    case EfficiencyGrouping::Partition:
      return "partition";
  }
  return "account";
}

std::optional<EfficiencyGrouping> parse_grouping(const std::string& word) {
  if (word == "user") return EfficiencyGrouping::User;
  if (word == "account") return EfficiencyGrouping::Account;
  if (word == "partition") return EfficiencyGrouping::Partition;
  return std::nullopt;
}

}  // namespace petricore::model
