// The process-wide logger: one line per message on stderr, with a level.
// The only global mutable state in petricore (see STYLE.md).
#pragma once

#include <string_view>

namespace petricore::log {

enum class Level { Debug = 0, Info = 1, Warning = 2, Error = 3 };

void set_level(Level level);
Level level();

void write(Level level, std::string_view message);

inline void debug(std::string_view m) {
  write(Level::Debug, m);
}
inline void info(std::string_view m) {
  write(Level::Info, m);
}
inline void warning(std::string_view m) {
  write(Level::Warning, m);
}
inline void error(std::string_view m) {
  write(Level::Error, m);
}

}  // namespace petricore::log
