#include "render/chart_axis.hpp"

#include "render/canvas.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

namespace petricore::render {

// ---------------------------------------------------------------------------
// Numbers

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

Unit unit_for(double magnitude) {
  static const Unit units[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& u : units)
    if (magnitude >= u.divisor) return u;
  return {1, ""};
}

std::string compact_number(double v) {
  if (!std::isfinite(v)) return "?";
  double a = std::fabs(v);
  char buf[64];
  if (a >= 1e21 || (a > 0 && a < 0.01)) {
    std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
  }
  Unit u = unit_for(a);
  double m = v / u.divisor;
  double am = std::fabs(m);
  int decimals = am >= 100 ? 0 : am >= 10 ? 1 : 2;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, m);
  return trim_zeros(buf) + u.suffix;
}

AxisNumbers axis_numbers(double max_abs, double step) {
  AxisNumbers n;
  if (max_abs >= 1e21 || step < 1e-9) {
    n.scientific = true;
    return n;
  }
  n.unit = max_abs >= 1e4 ? unit_for(max_abs) : Unit{1, ""};
  double x = step / n.unit.divisor;
  for (n.decimals = 0; n.decimals < 9; ++n.decimals) {
    double scaled = x * std::pow(10.0, n.decimals);
    if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) break;
  }
  return n;
}

std::string axis_label(double v, const AxisNumbers& n) {
  char buf[64];
  if (n.scientific) {
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*f", n.decimals, v / n.unit.divisor);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos) return "0";  // no "-0"
  return s + n.unit.suffix;
}

double nice_step(double rough) {
  if (!(rough > 0) || !std::isfinite(rough)) return 1;
  double p = std::pow(10.0, std::floor(std::log10(rough)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= rough * (1 - 1e-12)) return m * p;
  return 10 * p;
}

ValueTicks value_ticks(double lo, double hi, double target) {
  ValueTicks out;
  double step = nice_step((hi - lo) / target);
  // The epsilons keep a range that ends on a multiple of the step from
  // gaining a tick through rounding.
  double v0 = std::floor(lo / step + 1e-9) * step, v1 = std::ceil(hi / step - 1e-9) * step;
  if (!(v1 > v0)) v1 = v0 + step;
  out.v0 = v0;
  out.v1 = v1;
  AxisNumbers numbers = axis_numbers(std::max(std::fabs(v0), std::fabs(v1)), step);
  auto count = static_cast<long>(std::llround((v1 - v0) / step));
  for (long i = 0; i <= count && i <= 100; ++i) {
    double v = v0 + static_cast<double>(i) * step;
    out.ticks.push_back(v);
    out.labels.push_back(axis_label(v, numbers));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Time

bool usable_time(double t) {
  return std::isfinite(t) && std::fabs(t) <= kMaxAbsTime;
}

std::tm local_tm(double t) {
  std::time_t tt = static_cast<std::time_t>(std::floor(t));
  std::tm tm{};
  if (!localtime_r(&tt, &tm)) tm = std::tm{};
  return tm;
}

std::string format_time(double t, TimeFormat f) {
  static const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm = local_tm(t);
  const char* month = months[std::clamp(tm.tm_mon, 0, 11)];
  char buf[64];
  switch (f) {
    case TimeFormat::Seconds:
      std::snprintf(buf, sizeof buf, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
      break;
    case TimeFormat::Minutes:
      std::snprintf(buf, sizeof buf, "%02d:%02d", tm.tm_hour, tm.tm_min);
      break;
    case TimeFormat::DateMinutes:
      std::snprintf(buf, sizeof buf, "%s %d %02d:%02d", month, tm.tm_mday, tm.tm_hour, tm.tm_min);
      break;
    case TimeFormat::Date:
      std::snprintf(buf, sizeof buf, "%s %d", month, tm.tm_mday);
      break;
    case TimeFormat::Year:
      std::snprintf(buf, sizeof buf, "%d", tm.tm_year + 1900);
      break;
  }
  return buf;
}

std::string time_zone_name(double t) {
  std::tm tm = local_tm(t);
  if (tm.tm_zone && *tm.tm_zone) return clean_text(tm.tm_zone, 400);
  return "local time";
}

TimeTicks time_ticks(double t0, double t1, double plot_width, double font_size,
                     const std::function<double(const std::string&)>& label_width) {
  constexpr double kDay = 86400;
  static const double steps[] = {1,          2,          5,           10,          15,           30,
                                 60,         120,        300,         600,         900,          1800,
                                 3600,       7200,       10800,       21600,       43200,        kDay,
                                 2 * kDay,   7 * kDay,   14 * kDay,   30 * kDay,   91 * kDay,    182 * kDay,
                                 365 * kDay, 730 * kDay, 1825 * kDay, 3650 * kDay, 36500 * kDay, 365000 * kDay};
  std::tm a = local_tm(t0), b = local_tm(t1);
  bool crosses_days = a.tm_year != b.tm_year || a.tm_yday != b.tm_yday;
  double span = t1 - t0;
  TimeTicks out;
  double step = steps[std::size(steps) - 1];
  TimeFormat format = TimeFormat::Year;
  for (double s : steps) {
    TimeFormat f = s < 60           ? TimeFormat::Seconds
                   : s < kDay       ? (crosses_days ? TimeFormat::DateMinutes : TimeFormat::Minutes)
                   : s < 365 * kDay ? TimeFormat::Date
                                    : TimeFormat::Year;
    double width = std::max(label_width(format_time(t0, f)), label_width(format_time(t1, f)));
    double max_ticks = std::floor(plot_width / (width + 1.5 * font_size));
    if (std::floor(span / s) + 1 <= std::max(max_ticks, 2.0)) {
      step = s;
      format = f;
      break;
    }
  }
  double offset = static_cast<double>(local_tm(t0).tm_gmtoff);
  double first = std::ceil((t0 + offset) / step - 1e-9) * step - offset;
  for (int i = 0; i < 100; ++i) {
    double t = first + i * step;
    if (t > t1 + 1e-6) break;
    out.ticks.push_back(t);
    out.labels.push_back(format_time(t, format));
  }
  return out;
}

}  // namespace petricore::render
