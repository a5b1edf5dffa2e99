#include "render/mail_message.hpp"

#include "core/encoding.hpp"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <random>
#include <string_view>

namespace petricore::render {
namespace {

constexpr std::size_t kMaxEncodedLine = 76;  // RFC 2045 §6.7 and §6.8
constexpr const char* kCrlf = "\r\n";

// Header values are one line: CR, LF and other controls would start a new
// header (or end the headers) in the middle of ours.
std::string header_safe(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  return out;
}

bool is_plain_ascii(std::string_view text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

// base64 in lines of `line_length` characters joined by CRLF (RFC 2045 §6.8).
std::string base64_lines(std::string_view data, std::size_t line_length) {
  const std::string encoded = base64(data);
  std::string out;
  out.reserve(encoded.size() + encoded.size() / line_length * 2);
  for (std::size_t at = 0; at < encoded.size(); at += line_length) {
    if (at > 0) out += kCrlf;
    out.append(encoded, at, line_length);
  }
  return out;
}

// RFC 2047 "B" encoded-words of at most 75 characters, split on UTF-8
// character boundaries (a word must decode to whole characters), joined by
// folding whitespace.
std::string encoded_words(std::string_view text) {
  constexpr std::string_view prefix = "=?UTF-8?B?";
  constexpr std::string_view suffix = "?=";
  constexpr std::size_t max_bytes = (75 - prefix.size() - suffix.size()) / 4 * 3;  // 45 bytes per word
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.size(), start + max_bytes);
    // Back off over continuation bytes (10xxxxxx) so no character is split.
    while (end < text.size() && end > start + 1 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    if (!out.empty()) out += "\r\n ";
    out += prefix;
    out += base64(text.substr(start, end - start));
    out += suffix;
    start = end;
  }
  return out;
}

// "Subject: value" folded at spaces to lines of at most 78 characters where
// it can be (RFC 5322 §2.2.3); RFC 2047 encoded when it is not plain ASCII.
std::string subject_header(const std::string& subject) {
  const std::string value = header_safe(subject);
  if (!is_plain_ascii(value)) return "Subject: " + encoded_words(value) + kCrlf;
  std::string out = "Subject:";
  std::size_t column = out.size();
  std::size_t pos = 0;
  bool first = true;
  while (pos <= value.size()) {
    std::size_t space = value.find(' ', pos);
    if (space == std::string::npos) space = value.size();
    const std::string_view word(value.data() + pos, space - pos);
    if (!first && column + 1 + word.size() > 78) {
      out += "\r\n";
      column = 0;
    }
    out += ' ';
    out += word;
    column += 1 + word.size();
    first = false;
    pos = space + 1;
  }
  out += kCrlf;
  return out;
}

// RFC 2045 §6.7: UTF-8 text with '\n' line ends as quoted-printable with
// CRLF line ends; soft breaks keep encoded lines at 76 characters at most,
// and spaces or tabs that end a line are encoded so transports cannot strip
// them. A leading '.' stays as it is: SMTP dot-stuffing is the transport's.
std::string quoted_printable(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    const bool last = line_end == std::string_view::npos;
    if (last) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF input: one line end, not "=0D"
    std::size_t column = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const auto c = static_cast<unsigned char>(line[i]);
      const bool at_end = i + 1 == line.size();
      std::string token;
      if ((c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !at_end)) {
        token = static_cast<char>(c);
      } else {
        token = {'=', hex[c >> 4], hex[c & 0xF]};
      }
      // Room for the token plus a soft break "=" unless it ends the line.
      const std::size_t room = at_end ? kMaxEncodedLine : kMaxEncodedLine - 1;
      if (column + token.size() > room) {
        out += "=\r\n";
        column = 0;
      }
      out += token;
      column += token.size();
    }
    if (last) break;
    out += kCrlf;
    line_start = line_end + 1;
  }
  return out;
}

std::string rfc5322_date(std::int64_t epoch) {
  static constexpr const char* days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t t = static_cast<std::time_t>(epoch);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday], tm.tm_mday,
                months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buffer;
}

std::string random_hex(std::size_t digits) {
  static constexpr char hex[] = "0123456789abcdef";
  std::random_device device;
  std::mt19937_64 generator((static_cast<std::uint64_t>(device()) << 32) ^ device());
  std::string out;
  for (std::size_t i = 0; i < digits; ++i) out += hex[generator() & 0xF];
  return out;
}

std::string message_id(const std::string& from, std::int64_t date) {
  const std::size_t at = from.rfind('@');
  std::string domain = at == std::string::npos ? "" : header_safe(from.substr(at + 1));
  if (domain.empty() || domain.find_first_of(" <>") != std::string::npos) domain = "petricore.invalid";
  return "<" + std::to_string(date) + "." + std::to_string(::getpid()) + "." + random_hex(16) + "@" + domain + ">";
}

std::string join_addresses(const std::vector<std::string>& addresses) {
  std::string out;
  for (const auto& a : addresses) out += (out.empty() ? "" : ", ") + header_safe(a);
  return out;
}

std::string text_part_headers() {
  return "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n";
}

// A filename parameter: quoted, with the characters a quoted-string cannot
// hold replaced (ours are plain names like "job-123.pdf").
std::string quoted_filename(const std::string& name) {
  std::string out = "\"";
  for (char c : header_safe(name)) out += (c == '"' || c == '\\') ? '_' : c;
  return out + "\"";
}

}  // namespace

std::string compose_mail(const MailMessage& message) {
  const std::int64_t date = message.date != 0 ? message.date : static_cast<std::int64_t>(std::time(nullptr));
  std::string out;
  out += "Date: " + rfc5322_date(date) + kCrlf;
  out += "From: " + header_safe(message.from) + kCrlf;
  out += "To: " + join_addresses(message.to) + kCrlf;
  out += subject_header(message.subject);
  out += "Message-ID: " + message_id(message.from, date) + kCrlf;
  out += "MIME-Version: 1.0\r\n";
  out += "User-Agent: petricore\r\n";

  const std::string text = quoted_printable(message.text);
  if (message.attachments.empty()) {
    out += text_part_headers();
    out += kCrlf;
    out += text;
    if (text.size() < 2 || text.compare(text.size() - 2, 2, kCrlf) != 0) out += kCrlf;  // SMTP data ends in CRLF
    return out;
  }

  std::vector<std::string> encoded;
  encoded.reserve(message.attachments.size());
  for (const MailAttachment& a : message.attachments) encoded.push_back(base64_lines(a.data, kMaxEncodedLine));
  // "=_" cannot occur in quoted-printable or base64 output, so the first
  // boundary always fits; the loop only guards that reasoning.
  std::string boundary;
  auto occurs = [&](const std::string& b) {
    if (text.find(b) != std::string::npos) return true;
    for (const auto& e : encoded)
      if (e.find(b) != std::string::npos) return true;
    return false;
  };
  do boundary = "=_petricore_" + random_hex(24);
  while (occurs(boundary));

  out += "Content-Type: multipart/mixed; boundary=\"" + boundary + "\"\r\n";
  out += kCrlf;
  out += "This is a MIME message.\r\n";
  out += "\r\n--" + boundary + kCrlf;
  out += text_part_headers();
  out += kCrlf;
  // The CRLF before each "--boundary" belongs to the delimiter (RFC 2046
  // §5.1.1): the part's content is exactly what precedes it.
  out += text;
  for (std::size_t i = 0; i < message.attachments.size(); ++i) {
    const MailAttachment& a = message.attachments[i];
    out += "\r\n--" + boundary + kCrlf;
    out += "Content-Type: " + header_safe(a.content_type) + "; name=" + quoted_filename(a.filename) + kCrlf;
    out += "Content-Disposition: attachment; filename=" + quoted_filename(a.filename) + kCrlf;
    out += "Content-Transfer-Encoding: base64\r\n";
    out += kCrlf;
    out += encoded[i];
  }
  out += "\r\n--" + boundary + "--\r\n";
  return out;
}

}  // namespace petricore::render
