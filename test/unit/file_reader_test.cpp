// list_directory's options on a plain directory and on procfs.
#include "collect/file_reader.hpp"

#include "catch.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace petricore::collect;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> listed(int fd, ListOptions options, bool directories_only_by_visitor = false) {
  std::vector<std::string> names;
  REQUIRE(list_directory(
      fd,
      [&](std::string_view name, bool is_directory) {
        if (!directories_only_by_visitor || is_directory) names.emplace_back(name);
      },
      options));
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("list_directory: directories only, fresh and rewound fds", "[file_reader]") {
  std::string templ = (fs::temp_directory_path() / "petricore-list-XXXXXX").string();
  REQUIRE(::mkdtemp(templ.data()) != nullptr);
  fs::path dir = templ;
  fs::create_directories(dir / "step_0");
  fs::create_directories(dir / "step_batch");
  std::ofstream(dir / "cgroup.procs") << "1\n";
  fs::create_symlink("step_0", dir / "link");
  petricore::UniqueFd fd{::open(templ.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  REQUIRE(fd.valid());

  CHECK(listed(fd.get(), {false, false, true}) == std::vector<std::string>{"step_0", "step_batch"});
  // The fd is at its end now: listed again only when rewound.
  CHECK(listed(fd.get(), {false, false, true}).empty());
  CHECK(listed(fd.get(), {true, false, false}) ==
        std::vector<std::string>{"cgroup.procs", "link", "step_0", "step_batch"});
  CHECK(listed(fd.get(), {true, false, true}) == listed(fd.get(), {true, false, false}, true));
  std::error_code ec;
  fs::remove_all(dir, ec);
}

TEST_CASE("list_directory: on procfs a short getdents64 ends the listing with the same entries", "[file_reader]") {
  petricore::UniqueFd fd{::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  REQUIRE(fd.valid());
  std::vector<std::string> full = listed(fd.get(), {true, false});
  CHECK(!full.empty());
  CHECK(listed(fd.get(), {true, true}) == full);
  petricore::UniqueFd proc{::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  REQUIRE(proc.valid());
  // /proc has more entries than one 8 KiB getdents64 holds on a busy host:
  // the listing goes on past full buffers either way.
  std::vector<std::string> all = listed(proc.get(), {true, false, true});
  std::vector<std::string> short_end = listed(proc.get(), {true, true, true});
  CHECK(std::find(all.begin(), all.end(), "self") == all.end());  // a symlink, not a directory
  CHECK(std::find(short_end.begin(), short_end.end(), std::to_string(::getpid())) != short_end.end());
}
