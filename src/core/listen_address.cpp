#include "core/listen_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace petricore {

Result<ListenAddress> parse_listen_address(std::string_view text) {
  ListenAddress out;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return bad_input("missing ']'");
    if (close + 1 >= text.size() || text[close + 1] != ':') return bad_input("missing ':PORT'");
    out.host = std::string(text.substr(1, close - 1));
    out.ipv6 = true;
    in6_addr numeric{};
    if (inet_pton(AF_INET6, out.host.c_str(), &numeric) != 1)
      return bad_input("'" + out.host + "' is not an IPv6 address");
    port = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad_input("missing ':PORT'");
    out.host = std::string(text.substr(0, colon));
    if (out.host.find(':') != std::string::npos) return bad_input("an IPv6 address must be written in brackets");
    port = text.substr(colon + 1);
  }
  const std::string digits(port);
  if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos)
    return bad_input("port '" + digits + "' is not a number");
  const unsigned long value = std::stoul(digits);
  if (value > 65535) return bad_input("port " + digits + " is out of range");
  out.port = static_cast<std::uint16_t>(value);
  return out;
}

}  // namespace petricore
