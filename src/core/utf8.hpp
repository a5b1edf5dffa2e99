// UTF-8 checks for text that comes from outside (job names from sacct,
// process names, request targets, LDAP values) on its way into JSON, HTML,
// PDF pages and chart labels, none of which may carry invalid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace petricore {

// The length of the valid UTF-8 sequence starting at s[i], or 0: a
// continuation byte, an overlong form, a surrogate, a code point past
// U+10FFFF or a truncated sequence.
std::size_t utf8_sequence(std::string_view s, std::size_t i);

// `s` with every byte that starts no valid sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

// valid_utf8(s) with C0 control characters and DEL as spaces: what cairo
// can draw (invalid UTF-8 puts a cairo context in a permanent error state;
// controls are drawn as boxes).
std::string printable_utf8(std::string_view s);

}  // namespace petricore
