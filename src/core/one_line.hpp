// Text from elsewhere (a server's error, a proxy's page, a label) as it may
// appear in a one-line message: every message petricore prints is one line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace petricore {

// Control characters (newlines, tabs, escapes) become spaces and trailing
// spaces go. Text longer than `max_size` bytes is cut there and ends in "...".
std::string one_line(std::string_view text, std::size_t max_size = std::string_view::npos);

}  // namespace petricore
