// memory.stat, v1 or v2: the v2 form of what was read reads back the same,
// and a kernel figure summed from its parts (no "kernel" key) is at least
// each part: the sum does not wrap around.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <map>
#include <string>

using namespace petricore::collect;

namespace {

// "key value" lines as the harness reads them; nullopt when a key repeats.
std::optional<std::map<std::string, std::optional<std::uint64_t>>> lines_of(std::string_view text) {
  std::map<std::string, std::optional<std::uint64_t>> keys;
  while (!text.empty()) {
    std::string_view line = text.substr(0, text.find('\n'));
    text.remove_prefix(std::min(text.size(), line.size() + 1));
    std::size_t space = line.find(' ');
    std::string key(line.substr(0, space));
    if (keys.count(key)) return std::nullopt;
    keys[key] = space == std::string_view::npos ? std::nullopt : parse_u64(line.substr(space + 1));
  }
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  auto stat = parse_memory_stat(text);
  if (!stat) return 0;
  std::string v2 = "anon " + std::to_string(stat->anon) + "\nshmem " + std::to_string(stat->shmem) + "\n";
  if (stat->cache) v2 += "file " + std::to_string(*stat->cache) + "\n";
  if (stat->kernel) v2 += "kernel " + std::to_string(*stat->kernel) + "\n";
  auto again = parse_memory_stat(v2);
  FUZZ_CHECK(again && again->anon == stat->anon && again->shmem == stat->shmem && again->cache == stat->cache &&
             again->kernel == stat->kernel && !again->swap);

  auto keys = lines_of(text);
  if (!keys || !stat->kernel || keys->count("kernel")) return 0;
  for (const char* part : {"kernel_stack", "pagetables", "percpu", "sock", "slab"}) {
    auto found = keys->find(part);
    if (found != keys->end() && found->second) FUZZ_CHECK(*stat->kernel >= *found->second);
  }
  return 0;
}
