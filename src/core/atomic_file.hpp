// Replacing a file so that readers never see part of it. The one rule:
//
//   the data goes to a temporary file in the same directory (same file
//   system), which is closed (its close() error checked: NFS and quotas
//   report write errors only there) and then rename()d over the target. A
//   reader sees the old file or the new one, whole; on any failure the target
//   is left as it was and the temporary file is removed.
//
// Used by collect's node_exporter textfile (rewritten every pass) and by
// report's --pdf FILE.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace petricore {

struct AtomicWriteOptions {
  // The new file's mode; empty: 0666 less the umask, like any new file.
  std::optional<mode_t> mode;
  // fsync() before the rename, so the new content survives a crash. A file
  // rewritten every few seconds does not need it; a report written once does.
  bool sync = false;
  // Empty: a fresh mkstemp() name "<path>.XXXXXX". Else this fixed name
  // (opened O_NOFOLLOW and truncated), for a caller that must keep the
  // temporary name out of a pattern (node_exporter reads only "*.prom").
  std::string temp_path;
};

struct AtomicWriteError {
  enum class Step { Create, Chmod, Write, Rename };
  Step step;              // what failed
  int error;              // its errno
  std::string temp_path;  // the temporary file's name (already removed)
};

// Writes `data` over `path` by the rule above; no value when it succeeded.
std::optional<AtomicWriteError> write_file_atomically(const std::string& path, std::string_view data,
                                                      const AtomicWriteOptions& options = {});

// Writes all of `data` to `fd`, retrying short writes and EINTR; false with
// errno set on failure.
bool write_all(int fd, std::string_view data);

}  // namespace petricore
