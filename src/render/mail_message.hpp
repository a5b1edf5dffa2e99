// An Internet mail message (RFC 5322 + MIME) as the bytes handed to SMTP:
// the text part and, when there are attachments, multipart/mixed with each
// attachment base64-encoded. CRLF line ends; header values that are not
// ASCII are RFC 2047 encoded; the text is UTF-8, quoted-printable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace petricore::render {

struct MailAttachment {
  std::string filename;      // "job-123.pdf"
  std::string content_type;  // "application/pdf"
  std::string data;          // raw bytes
};

struct MailMessage {
  std::string from;             // address only: "petricore@login1.example.org"
  std::vector<std::string> to;  // addresses
  std::string subject;
  std::string text;  // UTF-8, '\n' line ends
  std::vector<MailAttachment> attachments;
  std::int64_t date = 0;  // epoch seconds for the Date header; 0 = now
};

std::string compose_mail(const MailMessage& message);

}  // namespace petricore::render
