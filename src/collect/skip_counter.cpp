#include "collect/skip_counter.hpp"

namespace petricore::collect {

std::map<std::string, std::uint64_t> SkipCounter::totals() const {
  std::map<std::string, std::uint64_t> result = totals_;
  for (auto reason : {skip_reason::d_state, skip_reason::timeout, skip_reason::pass_timeout})
    result.emplace(std::string{reason}, 0);
  return result;
}

}  // namespace petricore::collect
