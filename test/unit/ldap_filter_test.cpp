// Search filters built from user names (RFC 4515): whatever the name, it
// stays one assertion value and cannot change the filter's structure. The
// directory itself is tested against a real slapd (test/integration/slapd_test.sh).
#include "sources/directory.hpp"

#include "catch.hpp"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

using petricore::sources::ldap_filter;
using petricore::sources::ldap_filter_escape;
using petricore::sources::LdapConfig;
using petricore::sources::make_ldap_directory;
using namespace std::string_literals;

TEST_CASE("plain names are kept as they are", "[ldap]") {
  CHECK(ldap_filter_escape("alice") == "alice");
  CHECK(ldap_filter_escape("bob.smith-2_x@example.org") == "bob.smith-2_x@example.org");
  CHECK(ldap_filter_escape("a b=c,d+e;f<g>h\"i'j#k~l!m&n|o/p%q") == "a b=c,d+e;f<g>h\"i'j#k~l!m&n|o/p%q");
}

TEST_CASE("every special character of RFC 4515 is escaped", "[ldap]") {
  CHECK(ldap_filter_escape("*") == "\\2a");
  CHECK(ldap_filter_escape("(") == "\\28");
  CHECK(ldap_filter_escape(")") == "\\29");
  CHECK(ldap_filter_escape("\\") == "\\5c");
  CHECK(ldap_filter_escape("\0"s) == "\\00");
  CHECK(ldap_filter_escape("a\0b"s) == "a\\00b");
  CHECK(ldap_filter_escape("\\2a") == "\\5c2a");  // an escape in the input is not trusted
  CHECK(ldap_filter_escape("*()\\\0"s) == "\\2a\\28\\29\\5c\\00");
}

TEST_CASE("non-ASCII bytes are escaped byte by byte, in lowercase hex", "[ldap]") {
  CHECK(ldap_filter_escape("zo\xc3\xab") == "zo\\c3\\ab");              // zoë
  CHECK(ldap_filter_escape("\xe6\x9d\x8e") == "\\e6\\9d\\8e");          // 李
  CHECK(ldap_filter_escape("\xf0\x9f\x98\x80") == "\\f0\\9f\\98\\80");  // an emoji, 4 bytes
  CHECK(ldap_filter_escape("\x80\xff") == "\\80\\ff");                  // not UTF-8 at all
  CHECK(ldap_filter_escape("\x7f") == "\x7f");                          // DEL is ASCII
}

TEST_CASE("an empty value gives an empty assertion", "[ldap]") {
  CHECK(ldap_filter_escape("").empty());
  CHECK(ldap_filter("(uid=%s)", "") == "(uid=)");
}

TEST_CASE("injection attempts stay one value", "[ldap]") {
  CHECK(ldap_filter("(uid=%s)", "*") == "(uid=\\2a)");
  CHECK(ldap_filter("(uid=%s)", "*)(uid=*") == "(uid=\\2a\\29\\28uid=\\2a)");
  CHECK(ldap_filter("(uid=%s)", "alice)(|(objectClass=*)") == "(uid=alice\\29\\28|\\28objectClass=\\2a\\29)");
  CHECK(ldap_filter("(memberUid=%s)", "x)(memberUid=admin") == "(memberUid=x\\29\\28memberUid=admin)");
  // Whatever the name, the filter keeps exactly the template's parentheses.
  for (const std::string& name : {"*)(uid=*"s, "a)(|(b=*)"s, "(((("s, "))))"s, "\\29"s, "*\0*"s}) {
    std::string filter = ldap_filter("(&(objectClass=posixAccount)(uid=%s))", name);
    CHECK(std::count(filter.begin(), filter.end(), '(') == 3);
    CHECK(std::count(filter.begin(), filter.end(), ')') == 3);
    CHECK(filter.find('*') == std::string::npos);
    CHECK(filter.find('\0') == std::string::npos);
  }
}

TEST_CASE("every %s of a template is replaced", "[ldap]") {
  CHECK(ldap_filter("(|(uid=%s)(mail=%s))", "bob") == "(|(uid=bob)(mail=bob))");
  CHECK(ldap_filter("(|(memberUid=%s)(member=uid=%s,ou=people,dc=example,dc=org))", "a*") ==
        "(|(memberUid=a\\2a)(member=uid=a\\2a,ou=people,dc=example,dc=org))");
  CHECK(ldap_filter("%s%s%s", "(") == "\\28\\28\\28");
  CHECK(ldap_filter("(cn=%s)", "%s") == "(cn=%s)");  // a %s in the value is not expanded again
}

TEST_CASE("a template without %s and other % signs are kept", "[ldap]") {
  CHECK(ldap_filter("(objectClass=posixGroup)", "alice") == "(objectClass=posixGroup)");
  CHECK(ldap_filter("(cn=100%)", "alice") == "(cn=100%)");
  CHECK(ldap_filter("(cn=%d%s%)", "x") == "(cn=%dx%)");
  CHECK(ldap_filter("(uid=%s", "x") == "(uid=x");  // not validated here: the server rejects it
  CHECK(ldap_filter("", "x").empty());
}

// The configuration is checked before anything is loaded or contacted.
TEST_CASE("a bad ldap configuration is refused with one line", "[ldap]") {
  LdapConfig good;
  good.uri = "ldap://127.0.0.1:1";
  good.base = "dc=example,dc=org";

  auto refused = [](const LdapConfig& config) -> std::string {
    try {
      make_ldap_directory(config);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };

  LdapConfig c = good;
  c.uri = "http://ldap.example.org";
  CHECK(refused(c).find("is not ldap://") != std::string::npos);
  c.uri = "ldap://a ftp://b";
  CHECK(refused(c).find("'ftp://b'") != std::string::npos);
  c.uri = "";
  CHECK(refused(c) == "ldap uri is empty");

  c = good;
  c.base = "";
  CHECK(refused(c) == "ldap base is empty");

  c = good;
  c.user_filter = "(uid=alice)";
  CHECK(refused(c).find("has no %s") != std::string::npos);
  c = good;
  c.group_filter = "(objectClass=posixGroup)";
  CHECK(refused(c).find("has no %s") != std::string::npos);

  c = good;
  c.timeout_seconds = 0;
  CHECK(refused(c).find("timeout") != std::string::npos);

  c = good;
  c.bind_dn = "cn=reader,dc=example,dc=org";
  CHECK(refused(c) == "ldap bind_dn is set but password_file is not");
  c.password_file = "/nonexistent/petricore-ldap-password";
  CHECK(refused(c) == "ldap password_file /nonexistent/petricore-ldap-password: No such file or directory");

  c = good;
  c.password_file = "/etc/hostname";
  CHECK(refused(c).find("bind_dn is not") != std::string::npos);

  c = good;
  c.uri = "ldap://[::1";  // the scheme is right, the rest is checked by libldap itself
  CHECK(refused(c).find("ldap uri 'ldap://[::1': ") == 0);

  const std::filesystem::path empty =
      std::filesystem::temp_directory_path() / ("petricore-ldap-test-" + std::to_string(::getpid()));
  std::ofstream(empty).put('\n');
  std::filesystem::permissions(empty, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  c = good;
  c.bind_dn = "cn=reader,dc=example,dc=org";
  c.password_file = empty.string();
  CHECK(refused(c) == "ldap password_file " + empty.string() + ": empty");
  std::filesystem::remove(empty);

  CHECK(refused(good) == "accepted");
  c = good;
  c.uri = "LDAPS://ldap1.example.org:636 ldapi://%2Frun%2Fslapd%2Fldapi,ldap://ldap2.example.org";
  CHECK(refused(c) == "accepted");
}
