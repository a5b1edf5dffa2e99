#include "core/secret_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "core/unique_fd.hpp"

namespace petricore {

Result<std::string> read_secret_file(const std::string& path) {
  auto fail = [&](const std::string& why) { return bad_input(path + ": " + why); };
  if (path.empty()) return bad_input("no file given");
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  // Checked on the open file, so a rename between check and read cannot
  // swap in another one.
  if ((st.st_mode & S_IRWXO) != 0) return fail("readable or writable by others (chmod 640 or 600 it)");
  if ((st.st_mode & S_IWGRP) != 0) return fail("writable by group (chmod 640 or 600 it)");
  // One byte more than allowed tells "too long" from "exactly the limit".
  std::string text(kMaxSecretBytes + 1, '\0');
  std::size_t have = 0;
  while (have < text.size()) {
    const ssize_t got = ::read(fd.get(), text.data() + have, text.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail(std::strerror(errno));
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  if (have > kMaxSecretBytes) return fail("too long (more than 4096 bytes)");
  text.resize(have);
  if (!text.empty() && text.back() == '\n') {
    text.pop_back();
    if (!text.empty() && text.back() == '\r') text.pop_back();
  }
  if (text.empty()) return fail("empty");
  return text;
}

std::string read_password_file(const std::string& path, const std::string& what) {
  Result<std::string> secret = read_secret_file(path);
  if (!secret) throw StartupError(what + " " + secret.error().message);
  return std::move(*secret);
}

}  // namespace petricore
