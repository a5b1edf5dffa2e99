// The process's limit on open file descriptors (RLIMIT_NOFILE): what the
// collector's held files and serve's connections are sized by.
#pragma once

#include <cstddef>

namespace petricore {

// The soft limit in force (SIZE_MAX when unlimited; 1024, the customary
// one, when it cannot be read).
std::size_t open_file_limit();

// Raises the soft limit towards `wanted`, as far as the hard limit allows,
// never lowering it. Returns the soft limit in force afterwards.
std::size_t raise_open_file_limit(std::size_t wanted);

}  // namespace petricore
