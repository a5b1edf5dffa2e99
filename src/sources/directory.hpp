// A user directory (LDAP): a user's mail address and all of their groups.
#pragma once

#include "core/result.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::sources {

struct DirectoryUser {
  std::string username;         // the entry's own uid when it equals the name asked for but for ASCII case
  std::optional<unsigned> uid;  // uidNumber
  std::optional<std::string> email;
  std::vector<std::string> groups;  // every cn of every group listing the user, sorted, no duplicates
};

struct LdapConfig {
  std::string uri;      // ldap://host:port, ldaps://... or ldapi://...; several, space-separated, are tried in order
  std::string base;     // search base
  std::string bind_dn;  // empty = anonymous
  std::string password_file;  // read at start; never from argv
  std::string user_filter = "(uid=%s)";
  std::string group_filter = "(memberUid=%s)";
  std::string mail_attribute = "mail";
  double timeout_seconds = 5;  // the whole of one user() call: connect, bind and both searches
};

// Safe to call from several threads at once.
class Directory {
 public:
  virtual ~Directory() = default;
  // NotFound when no entry matches (or the name is empty), Unavailable when
  // the server fails or several entries match: "ldap <uri>: <reason>".
  virtual Result<DirectoryUser> user(const std::string& username) = 0;
};

// Throws StartupError (one line) for a bad config: a uri that is not
// ldap://, ldaps:// or ldapi://, an empty base, a filter without %s, a
// bind_dn without a readable, non-empty password_file (read once, here).
// Throws std::runtime_error when libldap-2.5.so.0 cannot be loaded. Does not
// contact the server: the first user() call does.
std::unique_ptr<Directory> make_ldap_directory(const LdapConfig& config);

// RFC 4515 escaping of a value put into a search filter: \ * ( ) NUL and
// non-ASCII bytes become \xx (two lowercase hex digits).
std::string ldap_filter_escape(std::string_view value);

// Replaces each %s of a filter template with the escaped value; any other %
// is kept as it is.
std::string ldap_filter(std::string_view filter_template, std::string_view value);

}  // namespace petricore::sources
