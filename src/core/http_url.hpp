// Checks and shows the base URLs of the HTTP services petricore talks to
// (the Pushgateway, Prometheus), so every client words its errors alike.
#pragma once

#include <string>
#include <string_view>

namespace petricore {

// The URL as it may appear in messages: "user:password@" replaced by "***@".
std::string redact_userinfo(const std::string& url);

// The base URL without trailing slashes. Throws StartupError with a
// one-line message naming `what` ("push URL", "Prometheus URL") when the URL
// is not http(s)://HOST[...] or carries a query, a fragment or spaces.
std::string validated_base_url(const std::string& url, std::string_view what);

}  // namespace petricore
