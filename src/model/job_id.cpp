#include "model/job_id.hpp"

#include <charconv>

namespace petricore::model {
namespace {

std::optional<std::uint32_t> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  if (value > 4294967294ULL) return std::nullopt;  // 0xFFFFFFFE is Slurm's NO_VAL - 1
  return static_cast<std::uint32_t>(value);
}

}  // namespace

std::string JobId::text() const {
  std::string out = std::to_string(job);
  if (array_task) out += "_" + std::to_string(*array_task);
  if (het_component) out += "+" + std::to_string(*het_component);
  return out;
}

std::optional<JobId> parse_job_id(std::string_view text) {
  JobId id;
  std::size_t sep = text.find_first_of("_+");
  auto job = parse_number(text.substr(0, sep));
  if (!job || *job == 0) return std::nullopt;
  id.job = *job;
  if (sep == std::string_view::npos) return id;
  auto rest = parse_number(text.substr(sep + 1));
  if (!rest) return std::nullopt;
  if (text[sep] == '_')
    id.array_task = rest;
  else
    id.het_component = rest;
  return id;
}

bool valid_user_name(std::string_view name) {
  if (name.empty() || name.size() > 32 || name.front() == '-') return false;
  for (char c : name) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace petricore::model
