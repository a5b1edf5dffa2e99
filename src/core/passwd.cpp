#include "core/passwd.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace petricore {
namespace {

constexpr std::size_t kMaxBuffer = std::size_t{1} << 20;

// Runs `lookup(entry, buffer, size, found)` (a getpw*_r call), growing the
// buffer on ERANGE; the entry or nullptr.
template <typename Lookup>
const passwd* look_up(passwd& entry, std::vector<char>& buffer, Lookup lookup) {
  const long hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  buffer.resize(hint > 0 ? static_cast<std::size_t>(hint) : 16384);
  while (true) {
    passwd* found = nullptr;
    const int rc = lookup(&entry, buffer.data(), buffer.size(), &found);
    if (rc == ERANGE && buffer.size() < kMaxBuffer) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    return rc == 0 ? found : nullptr;
  }
}

}  // namespace

std::optional<std::string> user_name_of_uid(uid_t uid) {
  passwd entry{};
  std::vector<char> buffer;
  const passwd* found = look_up(
      entry, buffer, [uid](passwd* e, char* b, std::size_t n, passwd** f) { return ::getpwuid_r(uid, e, b, n, f); });
  if (found == nullptr) return std::nullopt;
  return std::string(found->pw_name);
}

std::optional<uid_t> uid_of_user_name(const std::string& name) {
  passwd entry{};
  std::vector<char> buffer;
  const passwd* found = look_up(entry, buffer, [&name](passwd* e, char* b, std::size_t n, passwd** f) {
    return ::getpwnam_r(name.c_str(), e, b, n, f);
  });
  if (found == nullptr) return std::nullopt;
  return found->pw_uid;
}

}  // namespace petricore
