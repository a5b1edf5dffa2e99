#include "core/unique_fd.hpp"

#include <unistd.h>

namespace petricore {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

}  // namespace petricore
