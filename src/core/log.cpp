#include "core/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>

namespace petricore::log {
namespace {
std::atomic<Level> current_level{Level::Info};
std::mutex write_mutex;

const char* level_name(Level level) {
  switch (level) {
    case Level::Debug:
      return "debug";
    case Level::Info:
      return "info";
    case Level::Warning:
      return "warning";
    case Level::Error:
      return "error";
  }
  return "?";
}
}  // namespace

void set_level(Level level) {
  current_level = level;
}
Level level() {
  return current_level;
}

void write(Level level, std::string_view message) {
  if (level < current_level) return;
  std::string line = "petricore: ";
  line += level_name(level);
  line += ": ";
  line += message;
  line += '\n';
  std::lock_guard<std::mutex> lock(write_mutex);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace petricore::log
