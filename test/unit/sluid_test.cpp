// Slurm 26.05's SLUID: what is one, in which spelling, and which names only
// look like one (model/sluid.hpp).
#include "model/sluid.hpp"

#include "catch.hpp"

#include <string>

using petricore::model::parse_sluid;
using petricore::model::sluid_like;

TEST_CASE("a SLUID is s and 13 Crockford base32 characters, returned in its canonical spelling", "[sluid]") {
  CHECK(parse_sluid("s5K1KKYAYG5D00") == std::string("s5K1KKYAYG5D00"));
  CHECK(parse_sluid("s0123456789ABC") == std::string("s0123456789ABC"));
  CHECK(parse_sluid("sDEFGHJKMNPQRS") == std::string("sDEFGHJKMNPQRS"));
  CHECK(parse_sluid("sTVWXYZ0000000") == std::string("sTVWXYZ0000000"));
}

TEST_CASE("SLUIDs are case-insensitive: any spelling gives the same canonical one", "[sluid]") {
  CHECK(parse_sluid("s5k1kkyayg5d00") == std::string("s5K1KKYAYG5D00"));
  CHECK(parse_sluid("S5K1KKYAYG5D00") == std::string("s5K1KKYAYG5D00"));
  CHECK(parse_sluid("S5k1KkYaYg5D00") == std::string("s5K1KKYAYG5D00"));
}

TEST_CASE("I, L, O and U are not in Crockford's alphabet", "[sluid]") {
  for (char c : std::string("ILOUilou")) {
    std::string text = "s5K1KKYAYG5D0";
    text += c;
    CHECK_FALSE(parse_sluid(text));
    CHECK(sluid_like(text));
  }
}

TEST_CASE("a SLUID has exactly 14 characters", "[sluid]") {
  CHECK_FALSE(parse_sluid(""));
  CHECK_FALSE(parse_sluid("s"));
  CHECK_FALSE(parse_sluid("s5K1KKYAYG5D0"));    // 13
  CHECK_FALSE(parse_sluid("s5K1KKYAYG5D000"));  // 15
  CHECK(sluid_like("s5K1KKYAYG5D0"));
  CHECK(sluid_like("s5K1KKYAYG5D000"));
  CHECK_FALSE(sluid_like("s5K1KKYAYG5D"));      // 12: too far off to look like one
  CHECK_FALSE(sluid_like("s5K1KKYAYG5D0000"));  // 16
}

TEST_CASE("anything but s and base32 characters is not a SLUID", "[sluid]") {
  CHECK_FALSE(parse_sluid("x5K1KKYAYG5D00"));
  CHECK_FALSE(parse_sluid("55K1KKYAYG5D00"));
  CHECK_FALSE(parse_sluid("s5K1KKYAYG5D-0"));
  CHECK_FALSE(parse_sluid("s5K1KKYAYG5D 0"));
  CHECK_FALSE(parse_sluid(" s5K1KKYAYG5D0"));
  CHECK_FALSE(parse_sluid("job_1234567890"));
  CHECK_FALSE(parse_sluid(std::string("s5K1KKYAYG5D0\0", 14)));
  CHECK_FALSE(parse_sluid("s5K1KKYAYG5D\xc3\xa9"));
  CHECK_FALSE(parse_sluid("12345"));
}

TEST_CASE("the names Slurm puts beside jobs do not look like SLUIDs", "[sluid]") {
  for (const char* name : {"system", "slurm", "step_batch", "step_interactive", "user", "task_special", "job_123"})
    CHECK_FALSE(sluid_like(name));
  CHECK_FALSE(sluid_like("s5K1KKYAYG5D00"));  // a valid SLUID is one, not just like one
  CHECK_FALSE(sluid_like("s5K1KKYAYG5D-0"));
}
