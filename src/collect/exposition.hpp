// The Prometheus text exposition format (version 0.0.4), the one wire format
// every sink writes: the pull endpoint, the Pushgateway body, the textfile and
// `collect --once` all show the same bytes for the same snapshot.
#pragma once

#include "collect/sink.hpp"

#include <string>
#include <string_view>

namespace petricore::collect {

// The Content-Type of serialize_text's output.
inline constexpr std::string_view text_content_type = "text/plain; version=0.0.4";

// `# HELP` (when the family has help text), `# TYPE` and one line per sample,
// families in snapshot order. Label values are escaped; a sample's timestamp is
// written only when it is non-zero (the Pushgateway rejects pushed timestamps,
// so the collector leaves them at zero).
std::string serialize_text(const Snapshot& snapshot);

// The pieces of the format, for writers that render samples without a
// Snapshot (metrics.hpp's render_text) and give the same bytes:
// `value` escaped (backslash, newline, and quote when `quote_too`),
void append_escaped(std::string& out, std::string_view value, bool quote_too);
// and a sample value as printf's %.16g, which is how prometheus-cpp writes a
// double ("Nan", "+Inf", "-Inf" for the rest).
void append_value(std::string& out, double value);

}  // namespace petricore::collect
