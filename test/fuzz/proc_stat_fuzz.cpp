// /proc/<pid>/stat: a parsed line has a positive pid, a letter for a state,
// a comm that was between the parentheses, and reads back the same from the
// kernel's form.
#include "collect/kernel_formats.hpp"
#include "fuzz_check.hpp"

#include <cctype>
#include <string>

using namespace petricore::collect;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = petricore::fuzz::as_text(data, size);
  auto stat = parse_proc_stat(text);
  if (!stat) return 0;
  FUZZ_CHECK(stat->pid > 0);
  FUZZ_CHECK(std::isalpha(static_cast<unsigned char>(stat->state)));
  FUZZ_CHECK(stat->comm.size() + 4 <= size);
  FUZZ_CHECK(text.find("(" + stat->comm + ")") != std::string_view::npos);
  // Fields 3..39 in order; the ones not kept are zeros.
  std::string line = std::to_string(stat->pid) + " (" + stat->comm + ") " + stat->state;
  for (int field = 4; field <= 39; ++field) {
    line += ' ';
    switch (field) {
      case 4:
        line += std::to_string(stat->ppid);
        break;
      case 14:
        line += std::to_string(stat->utime);
        break;
      case 15:
        line += std::to_string(stat->stime);
        break;
      case 20:
        line += std::to_string(stat->num_threads);
        break;
      case 22:
        line += std::to_string(stat->starttime);
        break;
      case 24:
        line += std::to_string(stat->rss_pages);
        break;
      case 39:
        line += std::to_string(stat->processor);
        break;
      default:
        line += '0';
    }
  }
  auto again = parse_proc_stat(line + "\n");
  FUZZ_CHECK(again && again->pid == stat->pid && again->comm == stat->comm && again->state == stat->state &&
             again->ppid == stat->ppid && again->utime == stat->utime && again->stime == stat->stime &&
             again->num_threads == stat->num_threads && again->starttime == stat->starttime &&
             again->rss_pages == stat->rss_pages);
  return 0;
}
