// CoreShares and core_weights(): v2 per-core CPU seconds.
#include "collect/core_shares.hpp"

#include "catch.hpp"

#include <numeric>

using namespace petricore::collect;

namespace {

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

}  // namespace

TEST_CASE("an exclusive cpuset is weighted by /proc/stat busy ticks", "[core_shares]") {
  std::vector<std::uint64_t> busy{5, 30, 10, 99};
  std::unordered_map<int, double> job_ticks{{1, 1.0}};
  std::vector<double> weights;
  core_weights({1, 2}, true, &busy, job_ticks, weights);
  CHECK(weights == std::vector<double>{30, 10});
}

TEST_CASE("a shared cpuset, or unknown busy ticks, is weighted by the job's thread ticks", "[core_shares]") {
  std::vector<std::uint64_t> busy{5, 30, 10};
  std::unordered_map<int, double> job_ticks{{2, 4.0}};
  std::vector<double> weights;
  core_weights({1, 2}, false, &busy, job_ticks, weights);
  CHECK(weights == std::vector<double>{0, 4});
  core_weights({1, 2}, true, nullptr, job_ticks, weights);
  CHECK(weights == std::vector<double>{0, 4});
  // A CPU beyond /proc/stat's falls back to the thread ticks too.
  core_weights({2, 7}, true, &busy, {{7, 3.0}}, weights);
  CHECK(weights == std::vector<double>{10, 3});
}

TEST_CASE("the growth is shared by weight and the cores sum to the total", "[core_shares]") {
  CoreShares shares;
  std::vector<int> cpus{0, 1};
  shares.add(cpus, 10.0, {0, 0});  // no weights: evenly
  CHECK(shares.seconds() == std::vector<double>{5.0, 5.0});
  shares.add(cpus, 14.0, {3, 1});
  CHECK(shares.seconds()[0] == Approx(8.0));
  CHECK(shares.seconds()[1] == Approx(6.0));
  CHECK(sum(shares.seconds()) == Approx(14.0));
}

TEST_CASE("a total that went down adds nothing and is the next base", "[core_shares]") {
  CoreShares shares;
  std::vector<int> cpus{0, 1};
  shares.add(cpus, 10.0, {1, 1});
  shares.add(cpus, 8.0, {1, 0});
  CHECK(shares.seconds() == std::vector<double>{5.0, 5.0});
  shares.add(cpus, 9.0, {1, 0});
  CHECK(shares.seconds() == std::vector<double>{6.0, 5.0});
}

TEST_CASE("a cpuset of another size starts the shares again", "[core_shares]") {
  CoreShares shares;
  shares.add({0, 1}, 10.0, {1, 1});
  shares.add({0, 1, 2}, 13.0, {1, 1, 1});
  CHECK(shares.seconds() == std::vector<double>{1.0, 1.0, 1.0});
}
