#include "serve/auth.hpp"

#include "core/startup_error.hpp"
#include "model/job_id.hpp"
#include "sources/directory.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace petricore::serve {
namespace {

constexpr std::size_t kMaxGroupCacheEntries = 10000;

struct IpAddress {
  int family = 0;  // AF_INET or AF_INET6
  std::array<std::uint8_t, 16> bytes{};
  std::size_t size() const { return family == AF_INET ? 4 : 16; }
};

std::optional<IpAddress> parse_ip(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string s(text);
  // "[::1]" as in URLs and listen addresses.
  if (s.size() > 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  IpAddress ip;
  if (inet_pton(AF_INET, s.c_str(), ip.bytes.data()) == 1) {
    ip.family = AF_INET;
    return ip;
  }
  if (inet_pton(AF_INET6, s.c_str(), ip.bytes.data()) == 1) {
    ip.family = AF_INET6;
    // An IPv4-mapped address compares as the IPv4 address it carries.
    static const std::uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(ip.bytes.data(), mapped, 12) == 0) {
      IpAddress v4;
      v4.family = AF_INET;
      std::memcpy(v4.bytes.data(), ip.bytes.data() + 12, 4);
      return v4;
    }
    return ip;
  }
  return std::nullopt;
}

struct Block {
  IpAddress base;
  std::size_t prefix = 0;  // bits
};

std::optional<Block> parse_block(std::string_view pattern) {
  std::size_t slash = pattern.find('/');
  auto base = parse_ip(pattern.substr(0, slash));
  if (!base) return std::nullopt;
  Block block{*base, base->size() * 8};
  if (slash != std::string_view::npos) {
    std::string_view bits = pattern.substr(slash + 1);
    if (bits.empty() || bits.size() > 3 || bits.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    std::size_t n = static_cast<std::size_t>(std::atoi(std::string(bits).c_str()));
    if (n > block.prefix) return std::nullopt;
    block.prefix = n;
  }
  return block;
}

bool valid_header_name(std::string_view name) {
  if (name.empty()) return false;
  // RFC 9110 token characters.
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
  });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

AuthMode parse_auth_mode(const std::string& text) {
  if (text == "none") return AuthMode::None;
  if (text == "header") return AuthMode::Header;
  throw StartupError("--auth must be none or header, not '" + text + "'");
}

bool valid_address_pattern(std::string_view pattern) {
  return parse_block(pattern).has_value();
}

bool address_matches(std::string_view address, std::string_view pattern) {
  auto ip = parse_ip(address);
  auto block = parse_block(pattern);
  if (!ip || !block || ip->family != block->base.family) return false;
  std::size_t full = block->prefix / 8;
  if (std::memcmp(ip->bytes.data(), block->base.bytes.data(), full) != 0) return false;
  std::size_t rest = block->prefix % 8;
  if (rest == 0) return true;
  auto mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
  return (ip->bytes[full] & mask) == (block->base.bytes[full] & mask);
}

bool is_loopback_host(std::string_view host) {
  if (host == "localhost") return true;
  return address_matches(host, "127.0.0.0/8") || address_matches(host, "::1");
}

int access_status(Access access) {
  switch (access) {
    case Access::Allowed:
      return 200;
    case Access::Unauthenticated:
      return 401;
    case Access::Forbidden:
      return 403;
    case Access::Unavailable:
      return 502;
  }
  return 500;
}

Authorizer::Authorizer(AuthConfig config, sources::Directory* directory)
    : config_(std::move(config)), directory_(directory) {
  if (config_.mode == AuthMode::Header) {
    if (!valid_header_name(config_.header)) {
      throw StartupError("--auth-header '" + config_.header + "' is not a valid header name");
    }
    for (const auto& proxy : config_.trusted_proxies) {
      if (!valid_address_pattern(proxy)) {
        throw StartupError("--trusted-proxy '" + proxy + "' is not an IP address or CIDR block");
      }
    }
  }
}

AccessDecision Authorizer::identify(const HttpRequest& request, Identity& identity) const {
  identity = Identity{};
  if (config_.mode == AuthMode::None) return {};
  bool trusted = std::any_of(config_.trusted_proxies.begin(), config_.trusted_proxies.end(),
                             [&](const std::string& p) { return address_matches(request.remote_address, p); });
  if (!trusted) return {Access::Unauthenticated, "authentication required (not from a trusted proxy)"};
  const std::string* value = nullptr;
  for (const auto& h : request.headers) {
    if (!iequals(h.name, config_.header)) continue;
    // A proxy that appends instead of replacing would let a client choose
    // the first copy: refuse rather than guess.
    if (value != nullptr) return {Access::Unauthenticated, "authentication header given more than once"};
    value = &h.value;
  }
  if (value == nullptr) return {Access::Unauthenticated, "authentication required"};
  std::string_view user = trim(*value);
  if (user.empty()) return {Access::Unauthenticated, "authentication required"};
  if (!model::valid_user_name(user)) return {Access::Unauthenticated, "the authenticated user name is not valid"};
  identity.authenticated = true;
  identity.user = std::string(user);
  return {};
}

AccessDecision Authorizer::is_admin(const std::string& user) {
  if (std::find(config_.admins.begin(), config_.admins.end(), user) != config_.admins.end()) return {};
  if (config_.admin_group.empty() || directory_ == nullptr) return {Access::Forbidden, "not an admin"};
  auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = group_cache_.find(user);
    if (it != group_cache_.end() && it->second.expires > now) {
      if (it->second.admin) return {};
      return {Access::Forbidden, "not an admin"};
    }
  }
  // Outside the lock: the directory may take its timeout.
  auto found = directory_->user(user);
  bool admin = false;
  if (found.ok()) {
    const auto& groups = found->groups;
    admin = std::find(groups.begin(), groups.end(), config_.admin_group) != groups.end();
  } else if (found.error().kind != Error::Kind::NotFound) {
    return {Access::Unavailable, "cannot check the admin group: " + found.error().message};
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (group_cache_.size() >= kMaxGroupCacheEntries) group_cache_.clear();
    auto ttl = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(config_.group_cache_seconds));
    group_cache_[user] = {admin, now + ttl};
  }
  if (admin) return {};
  return {Access::Forbidden, "not an admin"};
}

std::map<std::string, std::vector<std::string>> parse_account_managers(const std::vector<std::string>& entries) {
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& entry : entries) {
    const auto colon = entry.find(':');
    const std::string account = entry.substr(0, colon);
    const std::string user = colon == std::string::npos ? "" : entry.substr(colon + 1);
    // Slurm's account names follow the same rules as user names here.
    if (!model::valid_user_name(account) || !model::valid_user_name(user)) {
      throw StartupError("--account-manager must be ACCOUNT:USER, not '" + entry + "'");
    }
    out[account].push_back(user);
  }
  return out;
}

std::vector<std::string> Authorizer::managed_accounts(const std::string& user) const {
  std::vector<std::string> out;
  for (const auto& [account, managers] : config_.account_managers) {
    if (std::find(managers.begin(), managers.end(), user) != managers.end()) out.push_back(account);
  }
  return out;
}

AccessDecision Authorizer::may_read_job(const Identity& identity, const std::string& owner,
                                        const std::string& account) {
  if (config_.mode == AuthMode::Header && identity.authenticated && !account.empty()) {
    auto managers = config_.account_managers.find(account);
    if (managers != config_.account_managers.end() &&
        std::find(managers->second.begin(), managers->second.end(), identity.user) != managers->second.end()) {
      return {};
    }
  }
  return may_read(identity, owner);
}

AccessDecision Authorizer::may_read(const Identity& identity, const std::string& owner) {
  if (config_.mode == AuthMode::None) return {};
  if (!identity.authenticated) return {Access::Unauthenticated, "authentication required"};
  if (!owner.empty() && identity.user == owner) return {};
  AccessDecision admin = is_admin(identity.user);
  if (admin.access == Access::Forbidden) return {Access::Forbidden, "user " + identity.user + " may not read this"};
  return admin;
}

}  // namespace petricore::serve
