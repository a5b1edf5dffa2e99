#include "core/smtp_client.hpp"

#include "core/curl_library.hpp"
#include "core/http_url.hpp"
#include "core/one_line.hpp"
#include "core/secret_file.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

namespace petricore {
namespace {

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         });
}

// An address as SMTP's MAIL FROM / RCPT TO take it: no spaces, brackets or
// controls that would change the command libcurl writes.
bool plain_address(const std::string& address) {
  if (address.empty() || address.find('@') == std::string::npos) return false;
  return std::none_of(address.begin(), address.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f || c == '<' || c == '>' || c == ',';
  });
}

struct Upload {
  const std::string* message;
  std::size_t offset = 0;
};

size_t read_message(char* buffer, size_t size, size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  const std::size_t n = std::min(size * count, upload->message->size() - upload->offset);
  std::memcpy(buffer, upload->message->data() + upload->offset, n);
  upload->offset += n;
  return n;
}

}  // namespace

Result<SmtpSent> send_mail(const SmtpConfig& config, const std::string& from,
                           const std::vector<std::string>& recipients, const std::string& message) {
  SmtpSent sent;
  sent.server = one_line(redact_userinfo(config.url));
  const bool smtps = starts_with_nocase(config.url, "smtps://");
  if (!smtps && !starts_with_nocase(config.url, "smtp://"))
    return bad_input("SMTP URL '" + sent.server + "' must start with smtp:// or smtps://");
  if (config.url.find_first_of(" \t\r\n?#") != std::string::npos)
    return bad_input("SMTP URL '" + sent.server + "' must not hold spaces, a query or a fragment");
  if (!(config.timeout_seconds > 0 && config.timeout_seconds <= 86400))
    return bad_input("SMTP timeout must be between 0 and 86400 seconds");
  if (!plain_address(from)) return bad_input("not a mail address for From: '" + one_line(from) + "'");
  if (recipients.empty()) return bad_input("no recipient for the mail");
  for (const std::string& r : recipients)
    if (!plain_address(r)) return bad_input("not a mail address: '" + one_line(r) + "'");
  std::string password;
  if (!config.password_file.empty()) {
    Result<std::string> secret = read_secret_file(config.password_file);
    if (!secret) return bad_input("SMTP password file " + secret.error().message);
    password = std::move(*secret);
    if (config.user.empty()) return bad_input("an SMTP password file needs an SMTP user");
  }

  const CurlLibrary* lib = nullptr;
  try {
    lib = &curl_library();
  } catch (const std::exception& e) {
    return unavailable("cannot send mail via SMTP server " + sent.server + ": " + e.what());
  }
  // libcurl's own parser: a malformed URL is bad input, not a failed send.
  {
    std::unique_ptr<CURLU, decltype(lib->url_cleanup)> parsed(lib->url(), lib->url_cleanup);
    if (!parsed) return unavailable("cannot parse URLs (out of memory)");
    const CURLUcode rc = lib->url_set(parsed.get(), CURLUPART_URL, config.url.c_str(), 0);
    if (rc != CURLUE_OK) return bad_input("SMTP URL '" + sent.server + "' is malformed: " + lib->url_strerror(rc));
  }

  CurlEasy curl(lib->easy_init());
  if (!curl) return unavailable("cannot send mail via SMTP server " + sent.server + ": cannot create a libcurl handle");
  CurlSlist rcpt;
  for (const std::string& r : recipients) {
    curl_slist* list = lib->slist_append(rcpt.get(), r.c_str());
    if (!list) return unavailable("cannot send mail: out of memory");
    if (!rcpt) rcpt.reset(list);  // later appends return the same head
  }

  CURL* h = curl.get();
  char error[CURL_ERROR_SIZE] = {};
  Upload upload{&message};
  const long timeout_ms = std::max(1L, std::lround(config.timeout_seconds * 1000.0));
  lib->easy_setopt(h, CURLOPT_URL, config.url.c_str());
  lib->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM for DNS timeouts
  lib->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  lib->easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
  lib->easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  lib->easy_setopt(h, CURLOPT_MAIL_FROM, from.c_str());
  lib->easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt.get());
  lib->easy_setopt(h, CURLOPT_UPLOAD, 1L);
  lib->easy_setopt(h, CURLOPT_READFUNCTION, read_message);
  lib->easy_setopt(h, CURLOPT_READDATA, &upload);
  lib->easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(message.size()));
  // On smtp://, starttls makes STARTTLS mandatory (no silent fallback to
  // plain text); smtps:// is TLS from the start.
  if (config.starttls && !smtps) lib->easy_setopt(h, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
  if (!config.user.empty()) {
    lib->easy_setopt(h, CURLOPT_USERNAME, config.user.c_str());
    lib->easy_setopt(h, CURLOPT_PASSWORD, password.c_str());
  }

  const CURLcode rc = lib->easy_perform(h);
  if (rc != CURLE_OK) {
    std::string reason = lib->easy_strerror(rc);
    // The error buffer holds the server's refusal ("RCPT failed: 550");
    // libcurl never puts the password there.
    if (error[0] != '\0') reason += " (" + one_line(error) + ")";
    return unavailable("cannot send mail via SMTP server " + sent.server + ": " + reason);
  }
  return sent;
}

}  // namespace petricore
