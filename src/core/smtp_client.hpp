// Sends one composed mail (render/mail_message.hpp) over SMTP with libcurl
// (dlopen'ed, core/curl_library.hpp): plain, STARTTLS (required when
// `starttls`), or smtps:// URLs; optional login with a password read from a
// file; a whole-call timeout. Failures are values naming the server.
#pragma once

#include "core/result.hpp"

#include <string>
#include <vector>

namespace petricore {

struct SmtpConfig {
  std::string url = "smtp://localhost:25";  // smtp://host:port or smtps://host:port
  bool starttls = false;                    // require STARTTLS on smtp://
  std::string user;                         // login when not empty
  std::string password_file;                // the login's password (core/secret_file.hpp)
  double timeout_seconds = 30;
};

struct SmtpSent {
  std::string server;  // the URL without credentials, for messages
};

// BadInput for an unusable config (bad URL, unreadable password file);
// Unavailable when the server cannot be reached or refuses the mail.
Result<SmtpSent> send_mail(const SmtpConfig& config, const std::string& from,
                           const std::vector<std::string>& recipients, const std::string& message);

}  // namespace petricore
