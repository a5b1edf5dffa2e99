// What the charts' axes read: the value axis's tick steps and labels, the
// time axis's ticks in local time, and the compact numbers of a pie's
// legend. Pure functions of the range (the time axis also of how wide the
// font makes a label), so tests call them without cairo. Internal to the
// chart modules: callers use render/chart.hpp.
#pragma once

#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace petricore::render {

// ---------------------------------------------------------------------------
// Numbers

struct Unit {
  double divisor;      // 1, 1e3, 1e6, ...
  const char* suffix;  // "", "k", "M", ...
};

// The largest of k, M, G, T, P, E not above `magnitude`; {1, ""} below 1000.
Unit unit_for(double magnitude);

// Trailing zeros and a trailing point removed from a "%.Nf" result.
std::string trim_zeros(std::string s);

// 3 significant digits with k/M/G...: "12.3k", "250", "0.75"; "%.2g" below
// 0.01 and from 1e21; "?" when not finite.
std::string compact_number(double v);

// One unit and one number of decimals for all of an axis's labels, enough
// to show its step exactly; scientific for huge values or tiny steps.
struct AxisNumbers {
  Unit unit{1, ""};
  int decimals = 0;
  bool scientific = false;
};
AxisNumbers axis_numbers(double max_abs, double step);

// A tick's label: "2.5", "40k", "1.2e+22"; never "-0".
std::string axis_label(double v, const AxisNumbers& n);

// The smallest of 1, 2, 2.5, 5 x 10^k at least `rough`; 1 for a step that
// is not positive and finite.
double nice_step(double rough);

// The value axis for data in [lo, hi] (lo < hi) with about `target` ticks:
// from a multiple of the step at or below lo to one at or above hi, at most
// 101 ticks.
struct ValueTicks {
  double v0 = 0, v1 = 1;  // the axis's ends
  std::vector<double> ticks;
  std::vector<std::string> labels;
};
ValueTicks value_ticks(double lo, double hi, double target);

// ---------------------------------------------------------------------------
// Time

// Beyond this many seconds from the epoch a number is not a time (and
// localtime fails).
constexpr double kMaxAbsTime = 1e11;
bool usable_time(double t);

// The local (TZ) calendar time of epoch seconds `t`; all zero when
// localtime fails.
std::tm local_tm(double t);

enum class TimeFormat {
  Seconds,      // "18:09:15"
  Minutes,      // "18:09"
  DateMinutes,  // "Nov 29 18:09"
  Date,         // "Nov 29"
  Year,         // "2026"
};
std::string format_time(double t, TimeFormat f);

// The time zone's abbreviation at `t` ("CET"), or "local time".
std::string time_zone_name(double t);

// Ticks on round local times (whole minutes, hours, days from local
// midnight, ...) between t0 and t1, as many as fit `plot_width` with labels
// `label_width` wide and 1.5 x `font_size` apart; at most 100.
struct TimeTicks {
  std::vector<double> ticks;
  std::vector<std::string> labels;
};
TimeTicks time_ticks(double t0, double t1, double plot_width, double font_size,
                     const std::function<double(const std::string&)>& label_width);

}  // namespace petricore::render
