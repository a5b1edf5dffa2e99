#include "core/subprocess.hpp"

#include "core/unique_fd.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

extern char** environ;

namespace petricore {
namespace {

class SpawnFileActions {
 public:
  SpawnFileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~SpawnFileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  SpawnFileActions(const SpawnFileActions&) = delete;
  SpawnFileActions& operator=(const SpawnFileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

class SpawnAttributes {
 public:
  SpawnAttributes() { ::posix_spawnattr_init(&attr_); }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  posix_spawnattr_t* get() { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

// A started child that is killed and reaped unless it was waited for.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait_blocking();
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // The wait status once the child has exited, nullopt while it runs.
  std::optional<int> try_wait() {
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid_, &status, WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == 0) return std::nullopt;
    pid_ = -1;
    return r < 0 ? -1 : status;
  }

 private:
  void wait_blocking() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  pid_t pid_;
};

std::string name_of(const std::string& env_entry) {
  return env_entry.substr(0, env_entry.find('='));
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

// Starts `argv` with stdin from /dev/null, stdout and stderr onto the given
// pipe ends, the environment plus `extra_env`, and signals reset.
Result<pid_t> spawn(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env, int out_fd,
                    int err_fd) {
  // The pipes are close-on-exec, so a child another thread spawns meanwhile
  // cannot hold our write ends open; dup2 onto 1 and 2 clears the flag.
  SpawnFileActions actions;
  ::posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(actions.get(), out_fd, 1);
  ::posix_spawn_file_actions_adddup2(actions.get(), err_fd, 2);

  // serve blocks or ignores signals in its threads; the child starts clean.
  SpawnAttributes attr;
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2}) sigaddset(&defaults, s);
  ::posix_spawnattr_setsigmask(attr.get(), &empty);
  ::posix_spawnattr_setsigdefault(attr.get(), &defaults);
  ::posix_spawnattr_setflags(attr.get(), POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    bool replaced = std::any_of(extra_env.begin(), extra_env.end(),
                                [&](const std::string& x) { return name_of(x) == name_of(entry); });
    if (!replaced) env.push_back(std::move(entry));
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<std::string> args(argv);
  std::vector<char*> env_ptrs, argv_ptrs;
  for (auto& e : env) env_ptrs.push_back(e.data());
  for (auto& a : args) argv_ptrs.push_back(a.data());
  env_ptrs.push_back(nullptr);
  argv_ptrs.push_back(nullptr);

  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, argv[0].c_str(), actions.get(), attr.get(), argv_ptrs.data(), env_ptrs.data());
  if (rc != 0) return unavailable("cannot run " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

using Clock = std::chrono::steady_clock;

// Reads both pipes to their end into `out` and `err`. The reason to stop
// early, or nullopt once both are closed.
std::optional<std::string> drain(UniqueFd& out_fd, UniqueFd& err_fd, std::string& out, std::string& err,
                                 Clock::time_point deadline, std::size_t max_bytes) {
  UniqueFd* fds[2] = {&out_fd, &err_fd};
  std::string* sinks[2] = {&out, &err};
  char buffer[65536];
  while (out_fd.valid() || err_fd.valid()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return std::string("timed out");
    pollfd polled[2];
    int which[2] = {0, 0};
    int n = 0;
    for (int i = 0; i < 2; ++i) {
      if (!fds[i]->valid()) continue;
      polled[n] = {fds[i]->get(), POLLIN, 0};
      which[n++] = i;
    }
    int ready = ::poll(polled, static_cast<nfds_t>(n), static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) return std::string("poll: ") + std::strerror(errno);
    for (int k = 0; k < n && ready > 0; ++k) {
      if (polled[k].revents == 0) continue;
      ssize_t got = ::read(polled[k].fd, buffer, sizeof buffer);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) {
        fds[which[k]]->reset();
        continue;
      }
      sinks[which[k]]->append(buffer, static_cast<std::size_t>(got));
      if (out.size() + err.size() > max_bytes) return "wrote more than " + std::to_string(max_bytes >> 20) + " MiB";
    }
  }
  return std::nullopt;
}

}  // namespace

Result<ProcessOutput> run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                                  double timeout_seconds, std::size_t max_output_bytes) {
  if (argv.empty()) return unavailable("run_process: no command");
  const std::string& program = argv[0];
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<long long>(std::max(timeout_seconds, 0.0) * 1000));

  int out_fds[2], err_fds[2];
  if (::pipe2(out_fds, O_CLOEXEC) != 0) return unavailable("cannot run " + program + ": pipe: " + std::strerror(errno));
  UniqueFd out_read(out_fds[0]), out_write(out_fds[1]);
  if (::pipe2(err_fds, O_CLOEXEC) != 0) return unavailable("cannot run " + program + ": pipe: " + std::strerror(errno));
  UniqueFd err_read(err_fds[0]), err_write(err_fds[1]);

  auto pid = spawn(argv, extra_env, out_write.get(), err_write.get());
  if (!pid) return pid.error();
  Child child(*pid);  // killed and reaped on every early return
  out_write.reset();
  err_write.reset();

  ProcessOutput output;
  auto stopped = drain(out_read, err_read, output.out, output.err, deadline, max_output_bytes);
  if (stopped && *stopped == "timed out")
    return unavailable(program + " timed out after " + seconds_text(timeout_seconds) + " (killed)");
  if (stopped) return unavailable(program + ": " + *stopped + " (killed)");

  // Both pipes are closed; the child is normally exiting by now.
  for (;;) {
    if (auto status = child.try_wait()) {
      if (*status == -1) return unavailable("cannot get the exit status of " + program);
      if (WIFEXITED(*status)) output.exit_status = WEXITSTATUS(*status);
      if (WIFSIGNALED(*status)) output.signal = WTERMSIG(*status);
      return output;
    }
    if (Clock::now() >= deadline)
      return unavailable(program + " timed out after " + seconds_text(timeout_seconds) + " (killed)");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::optional<std::string> find_executable(const std::string& name) {
  auto executable = [](const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return executable(name) ? std::optional<std::string>(name) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string_view dirs = (path != nullptr && *path != '\0') ? path : "/usr/local/bin:/usr/bin:/bin";
  for (;;) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
    if (executable(candidate)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace petricore
