// Byte encodings several modules need: base64 (RFC 4648 §4, for MIME parts
// and data: URIs), base64url (§5, for Pushgateway grouping keys) and
// percent-encoding of one URL path segment (RFC 3986).
#pragma once

#include <string>
#include <string_view>

namespace petricore {

// Padded, no line breaks.
std::string base64(std::string_view data);
std::string base64url(std::string_view data);

// Every byte that is not unreserved (A-Z a-z 0-9 - . _ ~) nor in `also_keep`
// as %XX (upper-case hex).
std::string percent_encode(std::string_view value, std::string_view also_keep = {});

}  // namespace petricore
