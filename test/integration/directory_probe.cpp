// A probe of the LDAP directory for test/integration/slapd_test.sh: one line
// per lookup, "<result> ms=<elapsed>", where <result> is "user=<u> uid=<n> email=<m> groups=<a,b>" (- when absent), or
// "<kind> <message>". Users come from the arguments, else one per stdin line.
// --threads N --repeat M: N threads look the users up M times each and
// report whether every answer equals the first one.
#include "sources/directory.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

using namespace petricore;
using namespace petricore::sources;

static std::string describe(Directory& directory, const std::string& name) {
  Result<DirectoryUser> r = directory.user(name);
  if (!r) {
    switch (r.error().kind) {
      case Error::Kind::NotFound:
        return "notfound " + r.error().message;
      case Error::Kind::Unavailable:
        return "unavailable " + r.error().message;
      default:
        return "other " + r.error().message;
    }
  }
  std::string groups;
  for (const std::string& g : r->groups) groups += (groups.empty() ? "" : ",") + g;
  return "user=" + r->username + " uid=" + (r->uid ? std::to_string(*r->uid) : "-") +
         " email=" + r->email.value_or("-") + " groups=" + (groups.empty() ? "-" : groups);
}

int main(int argc, char** argv) {
  LdapConfig c;
  std::vector<std::string> users;
  int threads = 0, repeat = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--uri")
      c.uri = next();
    else if (a == "--base")
      c.base = next();
    else if (a == "--bind-dn")
      c.bind_dn = next();
    else if (a == "--password-file")
      c.password_file = next();
    else if (a == "--user-filter")
      c.user_filter = next();
    else if (a == "--group-filter")
      c.group_filter = next();
    else if (a == "--mail-attribute")
      c.mail_attribute = next();
    else if (a == "--timeout")
      c.timeout_seconds = std::atof(next().c_str());
    else if (a == "--threads")
      threads = std::atoi(next().c_str());
    else if (a == "--repeat")
      repeat = std::atoi(next().c_str());
    else
      users.push_back(a);
  }
  std::unique_ptr<Directory> directory;
  try {
    directory = make_ldap_directory(c);
  } catch (const std::exception& e) {
    std::cout << "config " << e.what() << std::endl;
    return 2;
  }
  if (threads > 0) {
    std::vector<std::string> expected;
    for (const std::string& u : users) expected.push_back(describe(*directory, u));
    std::atomic<int> mismatches{0}, lookups{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (int k = 0; k < repeat; ++k) {
          for (std::size_t u = 0; u < users.size(); ++u) {
            std::string got = describe(*directory, users[u]);
            ++lookups;
            if (got != expected[u]) {
              if (mismatches++ == 0) std::cout << "mismatch: " << got << " instead of " << expected[u] << std::endl;
            }
          }
        }
      });
    }
    for (std::thread& t : pool) t.join();
    std::cout << "lookups=" << lookups << " mismatches=" << mismatches << std::endl;
    return mismatches == 0 ? 0 : 1;
  }
  auto one = [&](const std::string& u) {
    auto t0 = std::chrono::steady_clock::now();
    std::string line = describe(*directory, u);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    std::cout << line << " ms=" << ms << std::endl;
  };
  if (!users.empty()) {
    for (const std::string& u : users) one(u);
  } else {
    for (std::string u; std::getline(std::cin, u);) one(u);
  }
  return 0;
}
