// A job's charts as data: which jobs_* metrics can be plotted, their titles
// and units, one line per series (labelled by process name, by node and
// core, or by node), the dashed "lowest expected" line on CPU percent, and
// the two pies (user vs system time, CPU time per core). The drawing is
// chart.hpp's; serve, report --pdf and the HTML page all build charts here.
#pragma once

#include "core/result.hpp"
#include "model/job_report.hpp"
#include "render/chart.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace petricore::render {

struct ChartMetric {
  std::string metric;   // "jobs_cpu_percent"
  std::string title;    // "CPU use"
  std::string y_title;  // "CPU (% of one core)"
};

// The name /plot gives the utilisation of the job's GPUs (from the GPU
// exporter's series: AnalyzerOptions::gpu_utilization_metric), one line per GPU.
inline constexpr const char* kGpuUtilization = "gpu_utilization";

// Every metric /plot accepts, in the order the HTML page and the PDF show
// them (CPU percent, memory, reads, writes first).
const std::vector<ChartMetric>& chart_metrics();

// At most this many lines in one chart; the rest are summed into "others"
// or omitted (LineChart::omitted_lines says how many).
constexpr std::size_t kMaxChartLines = 64;

// The line chart of `metric` over the job's life. BadInput for a metric that
// is not in chart_metrics(); NotFound when the job has no series of it.
// For jobs_cpu_percent, the reference line is each node's share of the
// cpu_efficiency warning level: threshold x allocated CPUs / nodes drawn.
Result<LineChart> metric_chart(const model::JobReport& report, const std::string& metric);
// The same with other thresholds than the report's own.
Result<LineChart> metric_chart(const model::JobReport& report, const std::string& metric,
                               const model::RuleThresholds& thresholds);

// User vs system CPU time (seconds). NotFound when neither is known.
Result<PieChart> cpu_mode_pie(const model::JobReport& report);
// CPU time per allocated core (seconds). NotFound when not known.
Result<PieChart> cpu_core_pie(const model::JobReport& report);

}  // namespace petricore::render
