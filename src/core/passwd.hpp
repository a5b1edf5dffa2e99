// Look-ups in the passwd database (files, LDAP via sssd, ...: whatever NSS
// is configured to use). The one rule: the reentrant getpw*_r calls only,
// with a buffer that grows on ERANGE (large LDAP entries) up to 1 MiB; "no
// such entry" and "the look-up failed" are both no value, since every caller
// treats them alike (a raw uid shown, a user not found).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace petricore {

// The user name of `uid`.
std::optional<std::string> user_name_of_uid(uid_t uid);

// The uid of the user `name`.
std::optional<uid_t> uid_of_user_name(const std::string& name);

}  // namespace petricore
