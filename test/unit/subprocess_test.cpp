#include "core/subprocess.hpp"

#include "catch.hpp"

#include <chrono>
#include <optional>
#include <string>

using namespace petricore;

TEST_CASE("run_process captures stdout and stderr apart, and the exit status", "[subprocess]") {
  auto r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, {}, 10);
  REQUIRE(r.ok());
  CHECK(r->out == "out\n");
  CHECK(r->err == "err\n");
  CHECK(r->exit_status == 3);
  CHECK_FALSE(r->succeeded());
  // Arguments reach the program as they are: no shell splits or expands them.
  auto words = run_process({"/bin/echo", "a b", "$HOME", "*;"}, {}, 10);
  REQUIRE(words.ok());
  CHECK(words->out == "a b $HOME *;\n");
  auto env = run_process({"/bin/sh", "-c", "echo \"$PETRICORE_X\""}, {"PETRICORE_X=%s"}, 10);
  REQUIRE(env.ok());
  CHECK(env->out == "%s\n");
  auto killed = run_process({"/bin/sh", "-c", "kill -9 $$"}, {}, 10);
  REQUIRE(killed.ok());
  CHECK(killed->signal == 9);
  CHECK_FALSE(killed->succeeded());
}

TEST_CASE("run_process kills a command that outlives its timeout", "[subprocess]") {
  auto start = std::chrono::steady_clock::now();
  auto r = run_process({"/bin/sleep", "30"}, {}, 0.3);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == Error::Kind::Unavailable);
  CHECK(r.error().message.find("timed out") != std::string::npos);
  CHECK(took < 5);
  auto missing = run_process({"/nonexistent/sacct"}, {}, 5);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot run /nonexistent/sacct: No such file or directory");
}

TEST_CASE("find_executable: a path, or a search of PATH", "[subprocess]") {
  CHECK(find_executable("/bin/sh") == std::optional<std::string>("/bin/sh"));
  auto sh = find_executable("sh");
  REQUIRE(sh);
  CHECK(sh->find("/sh") != std::string::npos);
  CHECK_FALSE(find_executable("/nonexistent/sacct"));
  CHECK_FALSE(find_executable("/tmp"));  // a directory
  CHECK_FALSE(find_executable("petricore-no-such-command"));
  CHECK_FALSE(find_executable(""));
}

TEST_CASE("run_process stops a command that writes too much, and replaces an inherited variable", "[subprocess]") {
  auto flood = run_process({"/bin/sh", "-c", "head -c 200000 /dev/zero"}, {}, 10, 1u << 16);
  REQUIRE_FALSE(flood.ok());
  CHECK(flood.error().message.find("/bin/sh: wrote more than") == 0);
  auto home = run_process({"/bin/sh", "-c", "echo \"$HOME\"; echo done >&2"}, {"HOME=/nowhere"}, 10);
  REQUIRE(home.ok());
  CHECK(home->out == "/nowhere\n");
  CHECK(home->err == "done\n");
  CHECK(home->succeeded());
  auto none = run_process({}, {}, 10);
  REQUIRE_FALSE(none.ok());
}
