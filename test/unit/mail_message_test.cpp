#include "render/mail_message.hpp"

#include "catch.hpp"

#include <regex>
#include <string>
#include <vector>

using petricore::render::compose_mail;
using petricore::render::MailAttachment;
using petricore::render::MailMessage;

namespace {

MailMessage sample_message() {
  MailMessage m;
  m.from = "petricore@login1.example.org";
  m.to = {"alice@example.org"};
  m.subject = "Job 4242 (cfd-run) COMPLETED: 2 warnings";
  m.text = "----------General Data----------\nJob ID: 4242\nWARNING=true\n";
  m.date = 1700000000;  // Tue, 14 Nov 2023 22:13:20 +0000
  return m;
}

// The header block (up to the first empty line) and the body.
std::pair<std::string, std::string> split(const std::string& message) {
  const std::size_t end = message.find("\r\n\r\n");
  REQUIRE(end != std::string::npos);
  return {message.substr(0, end + 2), message.substr(end + 4)};
}

// The unfolded value of a header, or "" when it is absent.
std::string header(const std::string& headers, const std::string& name) {
  std::string unfolded = std::regex_replace(headers, std::regex("\r\n[ \t]"), " ");
  const std::string key = "\r\n" + name + ": ";
  std::size_t at = ("\r\n" + unfolded).find(key);
  if (at == std::string::npos) return "";
  at += key.size() - 2;
  return unfolded.substr(at, unfolded.find("\r\n", at) - at);
}

std::string base64_decode(const std::string& text) {
  static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=' || c == '\r' || c == '\n') continue;
    const std::size_t v = alphabet.find(c);
    REQUIRE(v != std::string::npos);
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

// RFC 2045 quoted-printable to text with '\n' line ends.
std::string qp_decode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '=' && text.compare(i + 1, 2, "\r\n") == 0) {
      i += 2;  // soft line break
    } else if (text[i] == '=') {
      REQUIRE(i + 2 < text.size());
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (text.compare(i, 2, "\r\n") == 0) {
      out += '\n';
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find("\r\n", start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 2;
  }
  return lines;
}

// The parts of a multipart message: {headers, content}.
std::vector<std::pair<std::string, std::string>> parts_of(const std::string& message) {
  auto [headers, body] = split(message);
  std::smatch m;
  const std::string type = header(headers, "Content-Type");
  REQUIRE(std::regex_search(type, m, std::regex("boundary=\"([^\"]+)\"")));
  const std::string delimiter = "\r\n--" + m[1].str();
  std::vector<std::pair<std::string, std::string>> parts;
  std::size_t at = body.find(delimiter);
  REQUIRE(at != std::string::npos);
  while (true) {
    at += delimiter.size();
    if (body.compare(at, 2, "--") == 0) break;
    REQUIRE(body.compare(at, 2, "\r\n") == 0);
    at += 2;
    const std::size_t next = body.find(delimiter, at);
    REQUIRE(next != std::string::npos);
    parts.push_back(split(body.substr(at, next - at)));
    at = next;
  }
  return parts;
}

}  // namespace

TEST_CASE("text-only mail has the RFC 5322 and MIME headers", "[mail_message]") {
  const std::string mail = compose_mail(sample_message());
  auto [headers, body] = split(mail);
  CHECK(header(headers, "From") == "petricore@login1.example.org");
  CHECK(header(headers, "To") == "alice@example.org");
  CHECK(header(headers, "Subject") == "Job 4242 (cfd-run) COMPLETED: 2 warnings");
  CHECK(header(headers, "Date") == "Tue, 14 Nov 2023 22:13:20 +0000");
  CHECK(std::regex_match(header(headers, "Message-ID"), std::regex("<[0-9a-f.]+@login1\\.example\\.org>")));
  CHECK(header(headers, "MIME-Version") == "1.0");
  CHECK(header(headers, "Content-Type") == "text/plain; charset=utf-8");
  CHECK(header(headers, "Content-Transfer-Encoding") == "quoted-printable");
  CHECK(qp_decode(body) == sample_message().text);
}

TEST_CASE("the Date header is RFC 5322 for now when no date is given", "[mail_message]") {
  MailMessage m = sample_message();
  m.date = 0;
  const std::string date = header(split(compose_mail(m)).first, "Date");
  CHECK(std::regex_match(date, std::regex("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-3][0-9] "
                                          "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) 20[0-9]{2} "
                                          "[0-2][0-9]:[0-5][0-9]:[0-6][0-9] \\+0000")));
}

TEST_CASE("several recipients share one To header", "[mail_message]") {
  MailMessage m = sample_message();
  m.to = {"alice@example.org", "bob@example.org"};
  CHECK(header(split(compose_mail(m)).first, "To") == "alice@example.org, bob@example.org");
}

TEST_CASE("every line of the mail ends in CRLF", "[mail_message]") {
  MailMessage m = sample_message();
  m.text = "one\ntwo\r\nthree\n\nfive";
  m.attachments.push_back({"job-4242.pdf", "application/pdf", std::string("%PDF-1.5\n\r\n\0\xff", 14)});
  const std::string mail = compose_mail(m);
  REQUIRE(mail.size() > 2);
  CHECK(mail.compare(mail.size() - 2, 2, "\r\n") == 0);
  for (std::size_t i = 0; i < mail.size(); ++i) {
    if (mail[i] == '\n') CHECK((i > 0 && mail[i - 1] == '\r'));
    if (mail[i] == '\r') CHECK((i + 1 < mail.size() && mail[i + 1] == '\n'));
  }
}

TEST_CASE("header values cannot inject headers", "[mail_message]") {
  MailMessage m = sample_message();
  m.subject = "Job 1\r\nBcc: eve@example.org";
  m.to = {"alice@example.org\r\nBcc: eve@example.org"};
  const std::string headers = split(compose_mail(m)).first;
  CHECK(headers.find("\r\nBcc:") == std::string::npos);
}

TEST_CASE("text and PDF attachment as multipart/mixed", "[mail_message]") {
  MailMessage m = sample_message();
  std::string pdf;
  for (int i = 0; i < 5000; ++i) pdf += static_cast<char>((i * 7919) & 0xFF);  // every byte value
  m.attachments.push_back({"job-4242.pdf", "application/pdf", pdf});
  const std::string mail = compose_mail(m);
  const std::string headers = split(mail).first;
  CHECK(header(headers, "MIME-Version") == "1.0");
  CHECK(header(headers, "Content-Type").rfind("multipart/mixed; boundary=\"", 0) == 0);

  const auto parts = parts_of(mail);
  REQUIRE(parts.size() == 2);
  CHECK(header(parts[0].first, "Content-Type") == "text/plain; charset=utf-8");
  CHECK(qp_decode(parts[0].second) == m.text);
  CHECK(header(parts[1].first, "Content-Type") == "application/pdf; name=\"job-4242.pdf\"");
  CHECK(header(parts[1].first, "Content-Disposition") == "attachment; filename=\"job-4242.pdf\"");
  CHECK(header(parts[1].first, "Content-Transfer-Encoding") == "base64");
  for (const std::string& line : lines_of(parts[1].second)) CHECK(line.size() <= 76);
  CHECK(base64_decode(parts[1].second) == pdf);
}

TEST_CASE("base64 round-trips every length remainder", "[mail_message]") {
  for (std::size_t size : {0u, 1u, 2u, 3u, 56u, 57u, 58u, 1000u}) {
    MailMessage m = sample_message();
    std::string data;
    for (std::size_t i = 0; i < size; ++i) data += static_cast<char>(255 - (i % 256));
    m.attachments.push_back({"x.bin", "application/octet-stream", data});
    const auto parts = parts_of(compose_mail(m));
    REQUIRE(parts.size() == 2);
    CHECK(base64_decode(parts[1].second) == data);
  }
}

TEST_CASE("the multipart boundary occurs nowhere in the content", "[mail_message]") {
  MailMessage m = sample_message();
  m.text = "--=_petricore_ looks like a boundary\n=_petricore_\n";
  m.attachments.push_back({"a.txt", "text/plain", "--=_petricore_0123456789abcdef01234567--"});
  const std::string mail = compose_mail(m);
  std::smatch match;
  const std::string type = header(split(mail).first, "Content-Type");
  REQUIRE(std::regex_search(type, match, std::regex("boundary=\"([^\"]+)\"")));
  const std::string boundary = match[1].str();
  std::size_t count = 0;
  for (std::size_t at = mail.find(boundary); at != std::string::npos; at = mail.find(boundary, at + 1)) ++count;
  CHECK(count == 4);  // the header, two delimiters and the close delimiter
  const auto parts = parts_of(mail);
  REQUIRE(parts.size() == 2);
  CHECK(qp_decode(parts[0].second) == m.text);
  CHECK(base64_decode(parts[1].second) == m.attachments[0].data);
}

TEST_CASE("a non-ASCII subject is RFC 2047 encoded in words of at most 75 characters", "[mail_message]") {
  MailMessage m = sample_message();
  m.subject = "Job 4242 (Strömungsrechnung für Größenordnung über 100 Kerne ünd mehr) COMPLETED: 2 Warnungen ✓";
  const std::string headers = split(compose_mail(m)).first;
  const std::string value = header(headers, "Subject");
  std::string decoded;
  std::smatch word;
  std::string rest = value;
  const std::regex encoded("=\\?UTF-8\\?B\\?([A-Za-z0-9+/=]*)\\?=");
  std::size_t words = 0;
  while (std::regex_search(rest, word, encoded)) {
    CHECK(word.length(0) <= 75);
    decoded += base64_decode(word[1].str());  // each word holds whole characters
    rest = word.suffix();
    ++words;
  }
  CHECK(words >= 2);
  CHECK(decoded == m.subject);
  for (char c : headers) CHECK(static_cast<unsigned char>(c) < 0x80);
}

TEST_CASE("a long ASCII subject is folded at spaces", "[mail_message]") {
  MailMessage m = sample_message();
  m.subject = "Job 4242 (a-rather-long-job-name-for-a-parameter-sweep) COMPLETED: 2 warnings, 1 critical finding";
  const std::string headers = split(compose_mail(m)).first;
  for (const std::string& line : lines_of(headers)) CHECK(line.size() <= 78);
  CHECK(header(headers, "Subject") == m.subject);
}

TEST_CASE("quoted-printable round-trips long lines, trailing spaces and UTF-8", "[mail_message]") {
  MailMessage m = sample_message();
  const std::string long_line(200, 'x');
  m.text = long_line + "\ntrailing space \ntrailing tab\t\nequals = sign\nUmlaute: äöü ✓\n\nlast line without end";
  const std::string body = split(compose_mail(m)).second;
  for (const std::string& line : lines_of(body)) {
    CHECK(line.size() <= 76);
    if (!line.empty()) CHECK((line.back() != ' ' && line.back() != '\t'));
  }
  for (char c : body) CHECK(static_cast<unsigned char>(c) < 0x80);
  CHECK(body.find("trailing space=20\r\n") != std::string::npos);
  CHECK(body.find("trailing tab=09\r\n") != std::string::npos);
  CHECK(qp_decode(body) == m.text + "\n");  // the message ends with a line end
}

TEST_CASE("a '=' split across a soft line break is never cut inside its escape", "[mail_message]") {
  MailMessage m = sample_message();
  m.text = std::string(74, 'a') + "ä=b" + std::string(80, '=');
  const std::string body = split(compose_mail(m)).second;
  for (const std::string& line : lines_of(body)) CHECK(line.size() <= 76);
  CHECK(qp_decode(body) == m.text + "\n");
}

TEST_CASE("a line starting with a dot is left for SMTP dot-stuffing to escape", "[mail_message]") {
  MailMessage m = sample_message();
  m.text = "first\n.\n.hidden\n..two\n";
  m.attachments.push_back({"job-1.pdf", "application/pdf", "%PDF"});
  const std::string mail = compose_mail(m);
  // libcurl doubles a leading '.' when it sends (smtp_test.sh checks that a
  // real server stores it once); doubling it here too would show two.
  CHECK(mail.find("\r\n.\r\n.hidden\r\n..two\r\n") != std::string::npos);
  CHECK(mail.find("\r\n...two") == std::string::npos);
  CHECK(qp_decode(parts_of(mail)[0].second) == m.text);
}
