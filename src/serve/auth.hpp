// Who is asking and what they may read ([serve] auth, ARCHITECTURE.md §5).
//
//  * none:   nobody is identified and everyone reads everything; allowed only
//            when the server listens on a loopback address (run_serve checks).
//  * header: a reverse proxy authenticates users and names them in one header
//            (X-Remote-User by default). The header is believed only when the
//            peer address is a trusted proxy; otherwise, or when it is
//            missing, empty, repeated or not a valid user name, the request
//            is unauthenticated (401). A user reads their own jobs and user
//            record; names in `admins` and members of `admin_group` (looked up
//            in the directory, remembered for a minute) read everything (else
//            403). An account's managers (`account_managers`) also read the
//            jobs of that account, and its fleet-efficiency figures.
#pragma once

#include "serve/http_types.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {
class Directory;
}

namespace petricore::serve {

enum class AuthMode { None, Header };

struct AuthConfig {
  AuthMode mode = AuthMode::None;
  std::string header = "X-Remote-User";
  std::vector<std::string> trusted_proxies;  // addresses or CIDR blocks ("10.1.0.0/16")
  std::vector<std::string> admins;
  std::string admin_group;          // needs a directory
  double group_cache_seconds = 60;  // how long a group lookup is remembered
  // account -> the users who manage it ([serve] account_manager = "ACCOUNT:USER").
  std::map<std::string, std::vector<std::string>> account_managers;
};

// "ACCOUNT:USER" entries to AuthConfig::account_managers; throws StartupError
// (one line) for an entry that is not two valid names.
std::map<std::string, std::vector<std::string>> parse_account_managers(const std::vector<std::string>& entries);

// "none" or "header"; throws StartupError (one line) otherwise.
AuthMode parse_auth_mode(const std::string& text);

// True when `address` (an IP literal) equals `pattern` or lies in it when
// `pattern` is a CIDR block. IPv4 and IPv6; false for anything unparsable.
bool address_matches(std::string_view address, std::string_view pattern);
// True for an IP literal or CIDR block that parses.
bool valid_address_pattern(std::string_view pattern);
// 127.0.0.0/8, ::1, ::ffff:127.x.y.z and "localhost".
bool is_loopback_host(std::string_view host);

struct Identity {
  // False with auth=none: the anonymous caller of a loopback-only server.
  bool authenticated = false;
  std::string user;
};

enum class Access {
  Allowed,
  Unauthenticated,  // 401
  Forbidden,        // 403
  Unavailable,      // 502: the directory failed while checking the admin group
};

struct AccessDecision {
  Access access = Access::Allowed;
  std::string message;  // why not, one line
  bool allowed() const { return access == Access::Allowed; }
};

// The HTTP status of a decision that is not Allowed.
int access_status(Access access);

class Authorizer {
 public:
  // Throws StartupError for an invalid header name or proxy address.
  // `directory` may be null (no admin group lookups); it must outlive this.
  Authorizer(AuthConfig config, sources::Directory* directory);

  AuthMode mode() const { return config_.mode; }

  // Fills `identity` with the caller of a request; an Unauthenticated
  // decision (401) says why it could not.
  AccessDecision identify(const HttpRequest& request, Identity& identity) const;

  // May `identity` read what belongs to `owner` (a job's owner, or the user
  // whose record is asked for)? Thread-safe; may ask the directory.
  AccessDecision may_read(const Identity& identity, const std::string& owner);
  // The same for a job: its owner, or a manager of its account.
  AccessDecision may_read_job(const Identity& identity, const std::string& owner, const std::string& account);
  // The accounts `user` manages (none for an unknown user), sorted.
  std::vector<std::string> managed_accounts(const std::string& user) const;

  // True when `user` is an admin (list or group); Unavailable when the
  // directory failed.
  AccessDecision is_admin(const std::string& user);

 private:
  AuthConfig config_;
  sources::Directory* directory_;
  struct GroupEntry {
    bool admin = false;
    std::chrono::steady_clock::time_point expires;
  };
  std::mutex mutex_;
  std::map<std::string, GroupEntry> group_cache_;
};

}  // namespace petricore::serve
