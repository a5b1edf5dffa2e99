// Writing PromQL safely: what a query needs to embed a value it got from
// elsewhere (a job id, a user name, a node name).
#pragma once

#include <string>
#include <string_view>

namespace petricore::sources {

// A PromQL string literal for a label value: quotes and escapes, so that no
// value can end the literal or the selector.
std::string promql_string(std::string_view value);

}  // namespace petricore::sources
