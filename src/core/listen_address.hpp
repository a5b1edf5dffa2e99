// The address a server listens on, as collect --listen and serve --listen
// take it. The one rule, for both:
//
//   HOST:PORT, :PORT (all interfaces) or [IPV6]:PORT, PORT 0..65535 (0: any
//   free port); an IPv6 address only in brackets, and only a numeric one.
//
// HOST is not resolved here: each server binds it its own way.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace petricore {

struct ListenAddress {
  std::string host;  // without brackets; "" for all interfaces
  std::uint16_t port = 0;
  bool ipv6 = false;  // host was written in brackets
};

// The address, or a BadInput error whose message says what is wrong
// ("missing ':PORT'", "port 99999 is out of range", ...) without the text.
Result<ListenAddress> parse_listen_address(std::string_view text);

}  // namespace petricore
