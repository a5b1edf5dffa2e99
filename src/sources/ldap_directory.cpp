// The LDAP directory: a user entry and every group that lists the user.
//
// Connections. libldap 2.5 is thread-safe as long as one session (LDAP*) is
// used by one thread at a time. Serve's workers call user() concurrently, so
// sessions live in a small pool: a call takes an idle session (or opens and
// binds a new one), and gives it back when the exchange went well. A session
// that failed in any way is closed, so the next call reconnects. Neither a
// mutex around one session (a hung server would make the N-th waiting worker
// wait N timeouts) nor a session per call (a TCP and TLS handshake and a bind
// for every lookup) is needed.
//
// A pooled session may have been closed by the server meanwhile (slapd's
// idletimeout, a restart). A call that finds it dead retries once on a fresh
// session, so an idle period never turns into a failed request; a session
// idle for longer than kMaxIdle is not reused at all.
//
// SIGPIPE. liblber writes with write(), not send(MSG_NOSIGNAL): once the peer
// has reset a session (a firewall dropping idle connections, `ss -K`), the
// failed search is followed by an unbind whose write raises SIGPIPE, and its
// default action ends the process. Every call that may write blocks SIGPIPE
// in its own thread and consumes one it raised (SigpipeBlock); the process's
// disposition is left alone.
#include "sources/directory.hpp"

#include "core/http_url.hpp"
#include "core/log.hpp"
#include "core/one_line.hpp"
#include "core/secret_file.hpp"
#include "core/signals.hpp"
#include "core/startup_error.hpp"
#include "sources/ldap_library.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <time.h>

namespace petricore::sources {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kMaxIdle = std::chrono::seconds(60);
constexpr std::size_t kMaxIdleSessions = 8;

// A user name as it may appear in a message or a log line: control bytes
// (a newline would forge a log line) become '?'.
std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return out;
}

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// ASCII only, whatever the locale.
bool has_prefix_nocase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (ascii_lower(text[i]) != ascii_lower(prefix[i])) return false;
  }
  return true;
}

// ASCII case-insensitive, like the uid attribute's caseIgnoreMatch for ASCII.
bool equal_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && has_prefix_nocase(a, b);
}

// libldap takes a list of URIs separated by spaces or commas (tried in order).
void validate_uri(const std::string& uri) {
  if (uri.find_first_not_of(" ,") == std::string::npos) throw StartupError("ldap uri is empty");
  std::size_t pos = 0;
  while ((pos = uri.find_first_not_of(" ,", pos)) != std::string::npos) {
    std::size_t end = uri.find_first_of(" ,", pos);
    std::string_view one = std::string_view(uri).substr(pos, end == std::string::npos ? end : end - pos);
    if (!has_prefix_nocase(one, "ldap://") && !has_prefix_nocase(one, "ldaps://") &&
        !has_prefix_nocase(one, "ldapi://")) {
      throw StartupError("ldap uri '" + redact_userinfo(std::string(one)) + "' is not ldap://, ldaps:// or ldapi://");
    }
    pos = end;
  }
}

void validate(const LdapConfig& c) {
  validate_uri(c.uri);
  if (c.base.empty()) throw StartupError("ldap base is empty");
  if (c.user_filter.find("%s") == std::string::npos) {
    throw StartupError("ldap user_filter '" + c.user_filter + "' has no %s for the user name");
  }
  if (c.group_filter.find("%s") == std::string::npos) {
    throw StartupError("ldap group_filter '" + c.group_filter + "' has no %s for the user name");
  }
  if (c.mail_attribute.empty()) throw StartupError("ldap mail_attribute is empty");
  if (!std::isfinite(c.timeout_seconds) || c.timeout_seconds <= 0 || c.timeout_seconds > 3600) {
    throw StartupError("ldap timeout must be between 0 and 3600 seconds");
  }
  if (!c.bind_dn.empty() && c.password_file.empty()) {
    throw StartupError("ldap bind_dn is set but password_file is not");
  }
  if (c.bind_dn.empty() && !c.password_file.empty()) {
    throw StartupError("ldap password_file is set but bind_dn is not (an anonymous bind has no password)");
  }
}

timeval to_timeval(double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(tv.tv_sec)) * 1e6);
  return tv;
}

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

// The values of one attribute of an entry, as strings (binary-safe).
std::vector<std::string> values_of(LDAP* ld, LDAPMessage* entry, const char* attribute) {
  const LdapLibrary& lib = ldap_library();
  std::vector<std::string> out;
  LdapValues values(lib.get_values_len(ld, entry, attribute));
  if (!values) return out;
  for (berval** v = values.get(); *v != nullptr; ++v) out.emplace_back((*v)->bv_val, (*v)->bv_len);
  return out;
}

std::optional<unsigned> parse_uid(const std::string& text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A null-terminated char* array for ldap_search_ext_s, which takes char**.
class AttributeList {
 public:
  explicit AttributeList(std::vector<std::string> names) : names_(std::move(names)) {
    for (std::string& n : names_) pointers_.push_back(n.data());
    pointers_.push_back(nullptr);
  }
  char** get() { return pointers_.data(); }

 private:
  std::vector<std::string> names_;
  std::vector<char*> pointers_;
};

// The outcome of one exchange with the server.
struct Attempt {
  Result<DirectoryUser> result;
  int code = LDAP_SUCCESS;  // the failing libldap code when the session failed
  bool session_ok() const { return code == LDAP_SUCCESS; }
  bool connection_lost() const { return code == LDAP_SERVER_DOWN || code == LDAP_CONNECT_ERROR; }
};

class LdapDirectory : public Directory {
 public:
  LdapDirectory(LdapConfig config, std::string password) : config_(std::move(config)), password_(std::move(password)) {}

  ~LdapDirectory() override {
    SigpipeBlock no_sigpipe;  // the unbinds of the idle sessions write
    idle_.clear();
  }
  LdapDirectory(const LdapDirectory&) = delete;
  LdapDirectory& operator=(const LdapDirectory&) = delete;

  // The whole call, retry included, takes at most timeout_seconds.
  Result<DirectoryUser> user(const std::string& username) override {
    if (username.empty()) return not_found("empty user name");
    SigpipeBlock no_sigpipe;
    const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                          std::chrono::duration<double>(config_.timeout_seconds));
    LdapHandle session = take_idle();
    const bool reused = static_cast<bool>(session);
    for (int round = 0;; ++round) {
      if (!session) {
        Result<LdapHandle> opened = open(deadline);
        if (!opened) return opened.error();
        session = std::move(*opened);
      }
      Attempt attempt = lookup(session.get(), username, deadline);
      if (attempt.session_ok()) {
        give_back(std::move(session));
        return std::move(attempt.result);
      }
      session.reset();  // any failure: the next call reconnects
      if (!(reused && round == 0 && attempt.connection_lost())) return std::move(attempt.result);
      // The server closed the pooled session (restart, idle timeout): the
      // other idle ones are most likely closed too.
      log::debug("ldap " + redact_userinfo(config_.uri) + ": pooled session was closed, reconnecting");
      drop_idle();
    }
  }

 private:
  struct Idle {
    LdapHandle session;
    Clock::time_point since;
  };

  Error failure(const std::string& what) const {
    return unavailable(printable("ldap " + redact_userinfo(config_.uri) + ": " + what));
  }

  // What is left of the call's time, at least 1 ms (libldap reads a zero
  // timeout as "poll"); the caller checks timed_out() first.
  static timeval remaining(Clock::time_point deadline) {
    auto left = std::chrono::duration<double>(deadline - Clock::now()).count();
    return to_timeval(std::max(left, 0.001));
  }
  static bool timed_out(Clock::time_point deadline) { return Clock::now() >= deadline; }

  // err2string plus the server's diagnostic message, when it sent one.
  std::string reason(LDAP* ld, int code) const {
    const LdapLibrary& lib = ldap_library();
    std::string text = lib.err2string(code);
    if (code == LDAP_TIMEOUT) text += " after " + seconds_text(config_.timeout_seconds) + " s";
    char* raw = nullptr;
    if (ld != nullptr && lib.get_option(ld, LDAP_OPT_DIAGNOSTIC_MESSAGE, &raw) == LDAP_OPT_SUCCESS) {
      LdapString diagnostic(raw);
      if (diagnostic && *diagnostic != '\0') text += " (" + std::string(diagnostic.get()) + ")";
    }
    return one_line(std::move(text));
  }

  // A new session, bound: connecting happens here (ldap_initialize does no I/O).
  Result<LdapHandle> open(Clock::time_point deadline) const {
    const LdapLibrary& lib = ldap_library();
    LDAP* raw = nullptr;
    int rc = lib.initialize(&raw, config_.uri.c_str());
    LdapHandle ld(raw);
    if (rc != LDAP_SUCCESS) return failure("cannot initialise: " + std::string(lib.err2string(rc)));
    if (timed_out(deadline)) {
      return failure("connect: timed out after " + seconds_text(config_.timeout_seconds) + " s");
    }
    const timeval left = remaining(deadline);
    const int version = LDAP_VERSION3;
    const int on = 1;  // LDAP_OPT_ON is the address of a liblber variable; any non-NULL means on
    struct Option {
      int option;
      const void* value;
      const char* name;
    };
    const Option options[] = {
        {LDAP_OPT_PROTOCOL_VERSION, &version, "protocol version 3"},
        {LDAP_OPT_REFERRALS, LDAP_OPT_OFF, "referrals off"},
        {LDAP_OPT_RESTART, &on, "restart on EINTR"},
        {LDAP_OPT_NETWORK_TIMEOUT, &left, "network timeout"},  // connect
        {LDAP_OPT_TIMEOUT, &left, "timeout"},                  // the bind's wait for its answer
    };
    for (const Option& o : options) {
      rc = lib.set_option(ld.get(), o.option, o.value);
      if (rc != LDAP_OPT_SUCCESS) return failure(std::string("cannot set ") + o.name);
    }
    // A simple bind, anonymous when no DN is configured: it also makes the
    // connection now, so "cannot contact" is reported as such.
    berval credentials{};
    credentials.bv_val = const_cast<char*>(password_.c_str());
    credentials.bv_len = password_.size();
    const char* dn = config_.bind_dn.empty() ? "" : config_.bind_dn.c_str();
    rc = lib.sasl_bind_s(ld.get(), dn, LDAP_SASL_SIMPLE, &credentials, nullptr, nullptr, nullptr);
    if (rc != LDAP_SUCCESS) {
      std::string who = config_.bind_dn.empty() ? "anonymous bind" : "bind as " + config_.bind_dn;
      return failure(who + ": " + reason(ld.get(), rc));
    }
    return ld;
  }

  // One subtree search under the base.
  int search(LDAP* ld, const std::string& filter, std::vector<std::string> attributes, int size_limit,
             Clock::time_point deadline, LdapMessagePtr& result) const {
    if (timed_out(deadline)) return LDAP_TIMEOUT;
    AttributeList attrs(std::move(attributes));
    timeval tv = remaining(deadline);  // the client's wait and the server's time limit
    LDAPMessage* raw = nullptr;
    int rc = ldap_library().search_ext_s(ld, config_.base.c_str(), LDAP_SCOPE_SUBTREE, filter.c_str(), attrs.get(), 0,
                                         nullptr, nullptr, &tv, size_limit, &raw);
    result.reset(raw);  // set on some failures too
    return rc;
  }

  Attempt lookup(LDAP* ld, const std::string& username, Clock::time_point deadline) const {
    const LdapLibrary& lib = ldap_library();
    const std::string user_filter = ldap_filter(config_.user_filter, username);
    LdapMessagePtr found;
    // Size limit 2: one entry is the answer, a second one makes it ambiguous.
    int rc = search(ld, user_filter, {"uid", "uidNumber", config_.mail_attribute}, 2, deadline, found);
    if (rc == LDAP_SIZELIMIT_EXCEEDED || (rc == LDAP_SUCCESS && lib.count_entries(ld, found.get()) > 1)) {
      return {failure("several entries match " + user_filter + " under " + config_.base), LDAP_SUCCESS};
    }
    if (rc != LDAP_SUCCESS)
      return {failure("search " + user_filter + " under " + config_.base + ": " + reason(ld, rc)), rc};
    LDAPMessage* entry = lib.first_entry(ld, found.get());
    if (entry == nullptr) {
      return {not_found("no user " + printable(username) + " in ldap " + redact_userinfo(config_.uri) + " under " +
                        config_.base),
              LDAP_SUCCESS};
    }

    DirectoryUser user;
    user.username = username;
    // The directory's spelling of the name (uid matches case-insensitively,
    // memberUid case-sensitively), when the entry has one.
    for (const std::string& uid : values_of(ld, entry, "uid")) {
      if (equal_nocase(uid, username)) {
        user.username = uid;
        break;
      }
    }
    if (auto numbers = values_of(ld, entry, "uidNumber"); !numbers.empty()) {
      user.uid = parse_uid(numbers.front());
      if (!user.uid)
        log::warning("ldap " + redact_userinfo(config_.uri) + ": " + printable(username) +
                     " has a malformed uidNumber");
    }
    if (auto mails = values_of(ld, entry, config_.mail_attribute.c_str()); !mails.empty() && !mails.front().empty()) {
      user.email = mails.front();
    }
    found.reset();

    // Every group, not only the first one (the original's bug).
    const std::string group_filter = ldap_filter(config_.group_filter, user.username);
    LdapMessagePtr groups;
    rc = search(ld, group_filter, {"cn"}, 0, deadline, groups);
    if (rc == LDAP_SIZELIMIT_EXCEEDED) {
      log::warning("ldap " + redact_userinfo(config_.uri) + ": the server's size limit cut the groups of " +
                   printable(user.username));
    } else if (rc != LDAP_SUCCESS) {
      return {failure("search " + group_filter + " under " + config_.base + ": " + reason(ld, rc)), rc};
    }
    for (LDAPMessage* g = lib.first_entry(ld, groups.get()); g != nullptr; g = lib.next_entry(ld, g)) {
      for (std::string& cn : values_of(ld, g, "cn")) user.groups.push_back(std::move(cn));
    }
    std::sort(user.groups.begin(), user.groups.end());
    user.groups.erase(std::unique(user.groups.begin(), user.groups.end()), user.groups.end());
    return {std::move(user), LDAP_SUCCESS};
  }

  LdapHandle take_idle() {
    std::vector<Idle> stale;  // closed outside the lock
    LdapHandle session;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const Clock::time_point now = Clock::now();
      while (!idle_.empty()) {
        Idle last = std::move(idle_.back());
        idle_.pop_back();
        if (now - last.since <= kMaxIdle) {
          session = std::move(last.session);
          break;
        }
        stale.push_back(std::move(last));
      }
    }
    return session;
  }

  void drop_idle() {
    std::vector<Idle> all;  // closed outside the lock
    std::lock_guard<std::mutex> lock(mutex_);
    all.swap(idle_);
  }

  void give_back(LdapHandle session) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.size() < kMaxIdleSessions) idle_.push_back({std::move(session), Clock::now()});
  }

  const LdapConfig config_;
  const std::string password_;  // empty for an anonymous bind
  std::mutex mutex_;            // guards idle_
  std::vector<Idle> idle_;
};

}  // namespace

std::unique_ptr<Directory> make_ldap_directory(const LdapConfig& config) {
  validate(config);
  std::string password =
      config.bind_dn.empty() ? std::string() : read_password_file(config.password_file, "ldap password_file");
  const LdapLibrary& lib = ldap_library();  // a missing libldap shows at start, not at the first request
  // ldap_initialize parses the URIs without connecting: a full syntax check.
  LDAP* raw = nullptr;
  int rc = lib.initialize(&raw, config.uri.c_str());
  LdapHandle probe(raw);
  if (rc != LDAP_SUCCESS) throw StartupError("ldap uri '" + redact_userinfo(config.uri) + "': " + lib.err2string(rc));
  return std::make_unique<LdapDirectory>(config, std::move(password));
}

std::string ldap_filter_escape(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    auto byte = static_cast<unsigned char>(c);
    if (byte == '\\' || byte == '*' || byte == '(' || byte == ')' || byte == '\0' || byte >= 0x80) {
      out += '\\';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0f];
    } else {
      out += c;
    }
  }
  return out;
}

std::string ldap_filter(std::string_view filter_template, std::string_view value) {
  const std::string escaped = ldap_filter_escape(value);
  std::string out;
  std::size_t pos = 0;
  for (std::size_t hit; (hit = filter_template.find("%s", pos)) != std::string_view::npos; pos = hit + 2) {
    out.append(filter_template, pos, hit - pos);
    out += escaped;
  }
  out.append(filter_template, pos, std::string_view::npos);
  return out;
}

}  // namespace petricore::sources
