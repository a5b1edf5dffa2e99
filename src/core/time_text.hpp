// A point in time as people write it on the command line and in query
// strings (`archive --since`, `report --since`, /api/v1/efficiency?since=):
//   2026-11-01                 midnight UTC of that day
//   2026-11-01T12:30[:45][Z]   that instant, UTC (the only zone accepted)
//   30d, 12h, 90m, 3600s, 2w   that long before `now`
//   now                        `now`
// Dates are read as UTC so that every host, and every user's browser, means
// the same instant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace petricore {

// Epoch seconds, or nullopt for anything else (including dates before 1970
// or after 9999, and ages beyond 100 years).
std::optional<std::int64_t> parse_time_point(std::string_view text, std::int64_t now);

// What parse_time_point accepts, for error messages.
extern const char* const kTimePointForms;

// parse_time_point for a command-line option `name` (--since): throws
// StartupError "--since must be <the forms>, not '<text>'" otherwise.
std::int64_t time_point_option(const std::string& name, std::string_view text, std::int64_t now);

// The system clock in epoch seconds.
std::int64_t epoch_seconds();

}  // namespace petricore
