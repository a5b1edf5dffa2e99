// top_thread_names(): the names with the most threads, the rest as "other".
#include "collect/thread_names.hpp"

#include "catch.hpp"

using namespace petricore::collect;

using Names = std::vector<std::pair<std::string, std::int64_t>>;

TEST_CASE("names by threads, most first, ties in name order", "[thread_names]") {
  ThreadsByName threads{{"bash", 1}, {"python3", 8}, {"sleep", 1}, {"gmx_mpi", 16}};
  CHECK(top_thread_names(threads, 16) == Names{{"gmx_mpi", 16}, {"python3", 8}, {"bash", 1}, {"sleep", 1}});
}

TEST_CASE("names past the cap are summed as other", "[thread_names]") {
  ThreadsByName threads{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}};
  CHECK(top_thread_names(threads, 2) == Names{{"d", 4}, {"c", 3}, {"other", 3}});
}

TEST_CASE("exactly as many names as the cap get no other", "[thread_names]") {
  ThreadsByName threads{{"a", 1}, {"b", 2}};
  CHECK(top_thread_names(threads, 2) == Names{{"b", 2}, {"a", 1}});
}

TEST_CASE("a cap of zero puts every thread under other", "[thread_names]") {
  ThreadsByName threads{{"a", 1}, {"b", 2}};
  CHECK(top_thread_names(threads, 0) == Names{{"other", 3}});
}

TEST_CASE("no processes, no names", "[thread_names]") {
  CHECK(top_thread_names({}, 16).empty());
}
