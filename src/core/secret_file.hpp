// Secrets (the SMTP, LDAP and MariaDB passwords) come only from files, never
// from the command line. Every password file follows one rule:
//
//   a regular file that others cannot read or write and its group cannot
//   write (0600, 0640, 0400, 0440), at most 4096 bytes, non-empty; the
//   secret is the whole content but one trailing line end ("\n" or "\r\n").
//
// Why the group may read: a daemon's secret is commonly root:<service> 0640
// (the service cannot change it), and one file may serve two service users
// through a group (serve's "petricore", slurmctld's MailProg as SlurmUser).
// Why refuse an open file rather than warn: like ssh with a private key, a
// password everyone can read is no longer a secret, and a refusal at start is
// seen at once where a warning in a log is not.
//
// A refused file is an error whose message names the file and says why in one
// line ("<path>: readable or writable by others (chmod 640 or 600 it)"); the
// caller puts the setting in front ("--password-file <path>: ...").
#pragma once

#include <cstddef>
#include <string>

#include "core/result.hpp"
#include "core/startup_error.hpp"

namespace petricore {

inline constexpr std::size_t kMaxSecretBytes = 4096;

// The secret in `path`, or a BadInput error "<path>: <why>".
Result<std::string> read_secret_file(const std::string& path);

// The same for a start-up setting: throws StartupError "<what> <path>: <why>",
// `what` naming the setting ("--password-file", "ldap password_file").
std::string read_password_file(const std::string& path, const std::string& what);

}  // namespace petricore
