// File sinks: the node_exporter textfile (rewritten atomically every pass) and
// standard output (collect --once).
#pragma once

#include "collect/error_counter.hpp"
#include "collect/sink.hpp"

#include <memory>
#include <string>

namespace petricore::collect {

// Every publish() writes the pass's text exposition to "<path>.tmp.<pid>" in the
// same directory, mode 0644, then rename()s it over `path`, so a reader (the
// node_exporter textfile collector) sees the previous file or the new one,
// never a partial one; the temp name does not end in ".prom", so the textfile
// collector ignores it. On failure (directory missing or not writable, disk
// full, ...) the previous file is left as it was, the temp file is removed,
// the error is counted as error_source::textfile in `errors` (logged once per
// cause) and publish() returns false. The file is left in place at shutdown:
// node_exporter reports its mtime, which shows that collection stopped.
// `errors` must outlive the sink.
std::unique_ptr<Sink> make_textfile_sink(std::string path, ErrorCounter& errors);

// Writes the pass's text exposition to standard output and flushes it. A write
// error (closed pipe, full disk) is logged and publish() returns false.
std::unique_ptr<Sink> make_stdout_sink();

}  // namespace petricore::collect
