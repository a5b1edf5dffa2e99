#include "core/open_file_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <limits>

namespace petricore {

namespace {

std::size_t soft_limit(const rlimit& limit) {
  return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<std::size_t>::max()
                                         : static_cast<std::size_t>(limit.rlim_cur);
}

}  // namespace

std::size_t open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  return soft_limit(limit);
}

std::size_t raise_open_file_limit(std::size_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  rlim_t target = std::min<rlim_t>(static_cast<rlim_t>(wanted), limit.rlim_max);
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < target) {
    rlimit raised = limit;
    raised.rlim_cur = target;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return soft_limit(limit);
}

}  // namespace petricore
