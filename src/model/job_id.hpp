// A Slurm job id as users write it, validated before any query is built:
// "123", an array task "123_4", or a heterogeneous job component "123+1".
// Each number is at most 10 digits and fits Slurm's 32-bit ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace petricore::model {

struct JobId {
  std::uint32_t job = 0;
  std::optional<std::uint32_t> array_task;     // 123_4
  std::optional<std::uint32_t> het_component;  // 123+1
  std::string text() const;                    // back to "123", "123_4", "123+1"
  bool operator==(const JobId& o) const {
    return job == o.job && array_task == o.array_task && het_component == o.het_component;
  }
};

// nullopt for anything else: empty, signs, spaces, letters, > 4294967294.
std::optional<JobId> parse_job_id(std::string_view text);

// A POSIX login name as sacct, LDAP and getpwnam accept it: 1-32 of
// [A-Za-z0-9._-], not starting with '-'. Checked before any query is built.
bool valid_user_name(std::string_view name);

}  // namespace petricore::model
