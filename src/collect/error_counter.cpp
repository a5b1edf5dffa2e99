#include "collect/error_counter.hpp"

#include "core/log.hpp"

namespace petricore::collect {

void ErrorCounter::count(std::string_view source, std::string_view cause, std::string_view detail) {
  std::string key{source};
  key += ": ";
  key += cause;
  bool first_time = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++totals_[std::string{source}];
    first_time = logged_causes_.insert(key).second;
  }
  if (first_time) {
    std::string message{detail};
    message +=
        " (logged once; further errors of this kind are only counted in petricore_collect_errors_total{source=\"";
    message += source;
    message += "\"})";
    log::warning(message);
  }
}

std::map<std::string, std::uint64_t> ErrorCounter::totals() const {
  std::map<std::string, std::uint64_t> result;
  for (auto s : {error_source::discovery, error_source::cgroup, error_source::proc, error_source::environ,
                 error_source::push, error_source::textfile}) {
    result[std::string{s}] = 0;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [source, n] : totals_) result[source] = n;
  return result;
}

}  // namespace petricore::collect
