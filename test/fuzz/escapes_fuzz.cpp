// Values embedded in other languages' text: an LDAP filter (RFC 4515) and a
// PromQL string literal. Neither escape can end its literal or selector
// early: the LDAP form holds no raw ( ) * \ NUL or non-ASCII byte and
// unescapes to the value; the PromQL literal is quoted, holds no raw
// newline or unescaped quote, and unescapes to the value.
#include "fuzz_check.hpp"
#include "sources/directory.hpp"
#include "sources/promql.hpp"

#include <string>

using namespace petricore::sources;

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string ldap_unescape(const std::string& escaped) {
  std::string out;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    const char c = escaped[i];
    FUZZ_CHECK(c != '(' && c != ')' && c != '*' && c != '\0' && static_cast<unsigned char>(c) < 0x80);
    if (c != '\\') {
      out += c;
      continue;
    }
    FUZZ_CHECK(i + 2 < escaped.size());
    const int hi = hex(escaped[i + 1]), lo = hex(escaped[i + 2]);
    FUZZ_CHECK(hi >= 0 && lo >= 0);
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string promql_unescape(const std::string& literal) {
  FUZZ_CHECK(literal.size() >= 2 && literal.front() == '"' && literal.back() == '"');
  std::string out;
  for (std::size_t i = 1; i + 1 < literal.size(); ++i) {
    const char c = literal[i];
    FUZZ_CHECK(c != '"' && c != '\n' && c != '\r');
    if (c != '\\') {
      out += c;
      continue;
    }
    FUZZ_CHECK(i + 2 < literal.size());
    const char e = literal[++i];
    if (e == 'x') {
      FUZZ_CHECK(i + 3 < literal.size());
      const int hi = hex(literal[i + 1]), lo = hex(literal[i + 2]);
      FUZZ_CHECK(hi >= 0 && lo >= 0);
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      FUZZ_CHECK(e == '"' || e == '\\' || e == 'n' || e == 'r' || e == 't');
      out += e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string value(petricore::fuzz::as_text(data, size));
  FUZZ_CHECK(ldap_unescape(ldap_filter_escape(value)) == value);
  const std::string filter = ldap_filter("(&(objectClass=posixGroup)(memberUid=%s))", value);
  FUZZ_CHECK(filter == "(&(objectClass=posixGroup)(memberUid=" + ldap_filter_escape(value) + "))");
  FUZZ_CHECK(promql_unescape(promql_string(value)) == value);
  return 0;
}
