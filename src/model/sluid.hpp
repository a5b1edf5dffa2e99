// Slurm 26.05's SLUID, the job's cluster-unique id that names its cgroup
// directory by default (`CgroupJobIdPaths=no`): "s" and 13 Crockford base32
// characters ([0-9A-HJKMNP-TV-Z]), case-insensitive, e.g. "s5K1KKYAYG5D00".
// petricore never decodes one: the numeric job id comes from the job's own
// environment (SLURM_JOB_ID) and, after collection, from jobs_info{sluid}.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace petricore::model {

// The canonical spelling of a valid SLUID ("s" + the 13 characters in upper
// case), or nullopt for anything else: another length, I, L, O, U, signs,
// spaces. "S5k1kkyayg5d00" and "s5K1KKYAYG5D00" are the same SLUID.
std::optional<std::string> parse_sluid(std::string_view text);

// Whether `name` looks like a SLUID but is not one: "s"/"S" followed by 12
// to 14 ASCII letters and digits. Discovery logs such directory names (at
// debug level) instead of skipping them in silence, since a typo in a
// fixture or a future Slurm format change would otherwise hide jobs.
bool sluid_like(std::string_view name);

}  // namespace petricore::model
