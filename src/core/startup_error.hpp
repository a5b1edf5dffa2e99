// The one error type for bad start-up configuration: an invalid option or
// config value, an unreadable password file, a listen address that does not
// parse. main prints its message as one line ("petricore: <message>") and
// exits with status 2 (bad usage), so the message must name the setting and
// say what is wrong with it.
//
// It derives from std::invalid_argument because that is what modules that
// validate their own configuration (layout patterns, URLs, LDAP and DB
// settings) throw, and what main already maps to exit 2: both meet the same
// catch. Failures after start-up are values (core/result.hpp), not this.
#pragma once

#include <stdexcept>

namespace petricore {

struct StartupError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace petricore
