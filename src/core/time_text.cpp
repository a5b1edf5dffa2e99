#include "core/time_text.hpp"

#include "core/startup_error.hpp"

#include <charconv>
#include <chrono>

namespace petricore {

const char* const kTimePointForms = "a date (2026-11-01, 2026-11-01T12:30:00, UTC), an age (30d, 12h, 90m, 2w) or now";

namespace {

constexpr std::int64_t kMaxAgeSeconds = std::int64_t{100} * 366 * 86400;

// The digits of text[at, at + width) as a number, or -1.
int digits(std::string_view text, std::size_t at, std::size_t width) {
  if (at + width > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

bool leap(int year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(int year, int month) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && leap(year) ? 29 : days[month - 1];
}

// Days from 1970-01-01 to the civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::optional<std::int64_t> parse_date(std::string_view text) {
  if (text.size() < 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  const int year = digits(text, 0, 4);
  const int month = digits(text, 5, 2);
  const int day = digits(text, 8, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return std::nullopt;
  std::int64_t seconds = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400;
  std::string_view rest = text.substr(10);
  if (rest.empty()) return seconds;
  if (rest.back() == 'Z') rest.remove_suffix(1);
  // "T12:30" or "T12:30:45" (a space instead of the T too).
  if (rest.size() != 6 && rest.size() != 9) return std::nullopt;
  if ((rest[0] != 'T' && rest[0] != ' ') || rest[3] != ':') return std::nullopt;
  const int hour = digits(rest, 1, 2);
  const int minute = digits(rest, 4, 2);
  int second = 0;
  if (rest.size() == 9) {
    if (rest[6] != ':') return std::nullopt;
    second = digits(rest, 7, 2);
  }
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return std::nullopt;
  return seconds + hour * 3600 + minute * 60 + second;
}

std::optional<std::int64_t> parse_age(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  std::int64_t unit = 0;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    case 'w':
      unit = 7 * 86400;
      break;
    default:
      return std::nullopt;
  }
  std::int64_t count = 0;
  const char* end = text.data() + text.size() - 1;
  auto [ptr, error] = std::from_chars(text.data(), end, count);
  if (error != std::errc{} || ptr != end || count < 0 || count > kMaxAgeSeconds / unit) return std::nullopt;
  return count * unit;
}

}  // namespace

std::optional<std::int64_t> parse_time_point(std::string_view text, std::int64_t now) {
  if (text == "now") return now;
  if (auto age = parse_age(text)) return now - *age;
  return parse_date(text);
}

std::int64_t time_point_option(const std::string& name, std::string_view text, std::int64_t now) {
  std::optional<std::int64_t> t = parse_time_point(text, now);
  if (!t) throw StartupError(name + " must be " + kTimePointForms + ", not '" + std::string(text) + "'");
  return *t;
}

std::int64_t epoch_seconds() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace petricore
