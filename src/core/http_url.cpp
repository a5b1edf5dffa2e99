#include "core/http_url.hpp"

#include "core/startup_error.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace petricore {
namespace {

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

}  // namespace

std::string redact_userinfo(const std::string& url) {
  const std::size_t authority = url.find("://");
  if (authority == std::string::npos) return url;
  const std::size_t start = authority + 3;
  // The last '@' anywhere, not the last one before the path: a password
  // written with a raw '/', '?' or '#' ("https://u:pa/ss@host") ends the
  // authority early for a URL parser, but it is still the password that
  // must not show. An '@' in a path costs the host in the message, which
  // is the safe way to be wrong.
  const std::size_t at = url.rfind('@');
  if (at == std::string::npos || at < start) return url;
  return url.substr(0, start) + "***" + url.substr(at);
}

std::string validated_base_url(const std::string& url, std::string_view what) {
  std::string shown = redact_userinfo(url);
  for (char& c : shown) {
    if (std::iscntrl(static_cast<unsigned char>(c))) c = '?';  // keep the message one line
  }
  const std::string named = std::string{what} + " '" + shown + "'";
  std::size_t scheme_end = 0;
  if (starts_with_nocase(url, "http://")) {
    scheme_end = 7;
  } else if (starts_with_nocase(url, "https://")) {
    scheme_end = 8;
  } else {
    throw StartupError(named + " must start with http:// or https://");
  }
  std::string base = url;
  while (base.size() > scheme_end && base.back() == '/') base.pop_back();
  if (base.size() == scheme_end || base[scheme_end] == '/') throw StartupError(named + " has no host");
  if (base.find_first_of("?# \t\r\n") != std::string::npos)
    throw StartupError(named + " must be a plain base URL (no query, fragment or spaces)");
  return base;
}

}  // namespace petricore
