// What report's two faces share (report_command.cpp's one job,
// fleet_report.cpp's fleet view and digests): their exit codes, their
// output, and who their mail goes to and comes from.
#pragma once

#include "core/result.hpp"
#include "report/report_command.hpp"

#include <string>
#include <vector>

namespace petricore::report {

// The one line on stderr and the exit code of `error` (2 bad input or an
// unknown job, 1 a failed dependency).
int fail(const Error& error);
// `text` on stdout, with a final newline.
void write_stdout(const std::string& text);
// The bytes to `path` as one complete file or not at all; "-" is stdout.
Result<bool> write_file(const std::string& path, const std::string& data);

// --to, else the directory's mail for `user`, else <user>@[smtp] domain.
Result<std::vector<std::string>> recipients(const ReportOptions& options, const std::string& user);
// [smtp] from, else petricore@<this host's FQDN>.
std::string sender(const ReportOptions& options);
// The public URL without its trailing slashes ("" when unset).
std::string public_base(const ReportOptions& options);

}  // namespace petricore::report
