#include "core/utf8.hpp"

#include "catch.hpp"

using namespace petricore;

TEST_CASE("UTF-8 sequences: valid ones by length, invalid ones as 0", "[utf8]") {
  CHECK(utf8_sequence("a", 0) == 1);
  CHECK(utf8_sequence("\xC3\xA9", 0) == 2);          // é
  CHECK(utf8_sequence("\xE2\x82\xAC", 0) == 3);      // €
  CHECK(utf8_sequence("\xF0\x9F\x98\x80", 0) == 4);  // emoji
  CHECK(utf8_sequence("\x80", 0) == 0);              // continuation byte
  CHECK(utf8_sequence("\xC0\xAF", 0) == 0);          // overlong '/'
  CHECK(utf8_sequence("\xED\xA0\x80", 0) == 0);      // surrogate
  CHECK(utf8_sequence("\xF4\x90\x80\x80", 0) == 0);  // past U+10FFFF
  CHECK(utf8_sequence("\xE2\x82", 0) == 0);          // truncated
}

TEST_CASE("invalid bytes become U+FFFD; printable text also loses its controls", "[utf8]") {
  CHECK(valid_utf8("ok \xC3\xA9") == "ok \xC3\xA9");
  CHECK(valid_utf8("a\xFF\xC3z") == "a\xEF\xBF\xBD\xEF\xBF\xBDz");
  CHECK(valid_utf8("tab\there") == "tab\there");
  CHECK(printable_utf8("tab\there\x7F\n\xFF") == "tab here  \xEF\xBF\xBD");
}
