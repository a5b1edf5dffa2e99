// The job archive's preset dictionaries (sources/archive_dictionary): each
// one's Adler-32 is pinned, since a record names its dictionary by it and a
// changed dictionary would make every record compressed with it unreadable.
#include "sources/archive_dictionary.hpp"
#include "core/deflate.hpp"

#include <zlib.h>
#include "catch.hpp"

#include <string>

using namespace petricore;

namespace {

unsigned long checksum(std::string_view d) {
  return adler32(adler32(0, nullptr, 0), reinterpret_cast<const Bytef*>(d.data()), static_cast<uInt>(d.size()));
}

}  // namespace

TEST_CASE("the archive's dictionaries never change", "[archive]") {
  const auto all = sources::archive_json_dictionaries();
  REQUIRE(all.size() == 1);
  CHECK(checksum(all[0]) == 1171346359ul);
  CHECK(all[0].size() == 15571);
  // The current one is among those a reader knows, and fits zlib's 32 KiB window.
  CHECK(sources::archive_json_dictionary() == all.back());
  CHECK(sources::archive_json_dictionary().size() <= 32768 - 262);
}

TEST_CASE("a job JSON compressed with the dictionary reads back and is smaller", "[archive]") {
  const std::string json = R"({
  "jobid": 77,
  "username": "ann",
  "state": "TIMEOUT",
  "findings": [
    {
      "rule": "cpu_efficiency",
      "severity": "warning"
    }
  ]
})";
  const std::string z = deflate_with_dictionary(json, 9, sources::archive_json_dictionary());
  CHECK(z.size() * 2 < deflate_bytes(json, 9, DeflateWrapper::Zlib).size());
  CHECK(inflate_bytes(z, 1 << 20, sources::archive_json_dictionaries()) == json);
}
