// Every JSON document petricore writes (the job JSON, the API's user record,
// its error bodies) is a boost::json::value written by json_text(), so that
// strings are escaped one way and numbers printed one way. Boost.JSON's own
// serializer is not used: 1.81 prints every double in exponent form
// ("1.5E0") and passes invalid UTF-8 through.
#pragma once

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace petricore::render {

enum class JsonLayout {
  // Every non-empty array and object over lines, two spaces per level.
  Pretty,
  // One line per record: the top level and arrays of objects over lines,
  // everything else on one line, members apart by ", " and ": ".
  Records,
  // One line, no spaces.
  Compact,
};

// `value` as JSON text, without a final newline; objects keep their
// insertion order. Strings: '"' and '\' escaped, control characters and DEL
// as \u00XX, bytes that start no valid UTF-8 sequence as \ufffd, so text
// from any source yields valid JSON. Doubles: the shortest form of %.15g
// (round them where they are built); non-finite ones are null.
std::string json_text(const boost::json::value& value, JsonLayout layout);

// A figure as the documents store it: rounded half away from zero to
// `decimals` places, an integer when the rounded value is whole (3000.0
// reads 3000, never -0), null when unknown or not finite.
boost::json::value json_number(const std::optional<double>& value, int decimals);

}  // namespace petricore::render
