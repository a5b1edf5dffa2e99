// serve's identity checks (auth = header): the input is a peer address, a
// trusted-proxy pattern and identity headers, one a line. An address
// matches itself, only valid patterns match anything, and a request is
// authenticated only from a trusted proxy, with exactly one identity header
// (any case), holding a valid user name.
#include "fuzz_check.hpp"
#include "model/job_id.hpp"
#include "serve/auth.hpp"

#include <algorithm>

using namespace petricore;
using namespace petricore::serve;

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    std::string_view line = text.substr(0, text.find('\n'));
    lines.emplace_back(line);
    text.remove_prefix(std::min(text.size(), line.size() + 1));
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> lines = lines_of(fuzz::as_text(data, size));
  if (lines.size() < 2) return 0;
  const std::string& address = lines[0];
  const std::string& pattern = lines[1];

  if (address_matches(address, pattern)) FUZZ_CHECK(valid_address_pattern(pattern));
  if (valid_address_pattern(address) && address.find('/') == std::string::npos)
    FUZZ_CHECK(address_matches(address, address));

  AuthConfig config;
  config.mode = AuthMode::Header;
  config.trusted_proxies = {"10.0.0.0/8"};
  if (valid_address_pattern(pattern)) config.trusted_proxies.push_back(pattern);
  Authorizer authorizer(config, nullptr);

  HttpRequest request = make_request("GET", "/api/v1/jobs/1", address);
  std::size_t identity_headers = 0;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    // Odd lines name the header in upper case: names compare without case.
    std::string name = i % 2 ? "X-REMOTE-USER" : "x-remote-user";
    if (lines[i].rfind("Other:", 0) == 0) name = "Other";
    identity_headers += name != "Other";
    request.headers.push_back({name, lines[i]});
  }
  Identity identity;
  AccessDecision decision = authorizer.identify(request, identity);
  FUZZ_CHECK(decision.allowed() == identity.authenticated);
  if (identity.authenticated) {
    FUZZ_CHECK(identity_headers == 1);
    FUZZ_CHECK(model::valid_user_name(identity.user));
    FUZZ_CHECK(std::any_of(config.trusted_proxies.begin(), config.trusted_proxies.end(),
                           [&](const std::string& p) { return address_matches(address, p); }));
  } else {
    FUZZ_CHECK(decision.access == Access::Unauthenticated && decision.message.find('\n') == std::string::npos);
  }
  return 0;
}
