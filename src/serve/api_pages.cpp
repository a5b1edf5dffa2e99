// The drawn and HTML faces of a job (ARCHITECTURE.md §5): /plot, /pie, /pdf,
// /jobs/<id> and the index's job form. Same authorisation and errors as the
// JSON routes (Api::load_job); settled finished jobs' files are drawn once and kept
// in the rendered cache.
#include "core/deflate.hpp"
#include "model/job_id.hpp"
#include "model/sluid.hpp"
#include "render/chart.hpp"
#include "render/job_charts.hpp"
#include "render/job_html.hpp"
#include "render/pdf_report.hpp"
#include "serve/api.hpp"
#include "serve/compression.hpp"

#include <charconv>
#include <optional>
#include <stdexcept>
#include <utility>

namespace petricore::serve {
namespace {

struct ImageRequest {
  render::ImageFormat format = render::ImageFormat::Png;
  int width = 900;
  int height = 450;
  std::string key() const {
    return std::string(format == render::ImageFormat::Png ? "png/" : "svg/") + std::to_string(width) + "x" +
           std::to_string(height);
  }
};

std::optional<int> parse_int(const std::string& text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The image options of a request, or the BadInput (400) that explains what
// is wrong.
Result<ImageRequest> image_request(const HttpRequest& request) {
  ImageRequest image;
  if (const std::string* format = request.query_param("format")) {
    if (*format == "svg") {
      image.format = render::ImageFormat::Svg;
    } else if (*format != "png") {
      return bad_input("format must be png or svg");
    }
  }
  struct Dimension {
    const char* name;
    int* value;
    int low, high;
  };
  for (Dimension d : {Dimension{"width", &image.width, 200, 4000}, Dimension{"height", &image.height, 150, 3000}}) {
    const std::string* text = request.query_param(d.name);
    if (text == nullptr) continue;
    auto value = parse_int(*text);
    if (!value || *value < d.low || *value > d.high) {
      return bad_input(std::string(d.name) + " must be a whole number of pixels from " + std::to_string(d.low) +
                       " to " + std::to_string(d.high));
    }
    *d.value = *value;
  }
  return image;
}

// Drawing failed: cairo missing or broken on this server. Says so; the
// error is the server's, not the request's.
HttpResponse drawing_failed(const std::exception& e) {
  return json_error(500, std::string("cannot draw: ") + e.what());
}

}  // namespace

HttpResponse Api::drawn(const HttpRequest& request, const CachedReport& entry, const std::string& key,
                        const std::string& content_type, const std::function<std::string()>& draw) {
  RenderedFile file = entry.settled() ? rendered_.find(key) : nullptr;
  if (!file) {
    try {
      file = std::make_shared<const std::string>(draw());
    } catch (const std::runtime_error& e) {
      return drawing_failed(e);
    }
    if (entry.settled()) rendered_.put(key, file);
  }
  HttpResponse response;
  response.content_type = content_type;
  // Per user (authorisation), so never in a shared cache.
  response.headers.push_back({"Cache-Control", entry.settled() ? "private, max-age=300" : "no-store"});
  if (entry.settled() && should_gzip(request, content_type, file->size())) {
    // A job page is ~600 kB: compressing it once, not at every request.
    const std::string gzip_key = key + "|gzip";
    RenderedFile gzipped = rendered_.find(gzip_key);
    if (!gzipped) {
      gzipped = std::make_shared<const std::string>(deflate_bytes(*file, kGzipLevel, DeflateWrapper::Gzip));
      rendered_.put(gzip_key, gzipped);
    }
    response.body = *gzipped;
    response.headers.push_back({"Content-Encoding", "gzip"});
    response.headers.push_back({"Vary", "Accept-Encoding"});
    return response;
  }
  response.body = *file;
  return response;
}

// The query is checked before the job is loaded: a malformed request costs
// no analysis.
HttpResponse Api::plot(const HttpRequest& request, const std::string& job_id, const std::string& metric) {
  auto image = image_request(request);
  if (!image) return error_response(image.error());
  JobAnswer entry = load_job(request, job_id, false);
  if (!entry) return entry.take_refusal();
  auto chart = render::metric_chart(entry->report, metric);
  if (!chart) return json_error(error_status(chart.error().kind), chart.error().message);
  return drawn(request, *entry, "plot/" + entry->report.usage.job.job_id + "/" + metric + "/" + image->key(),
               render::content_type(image->format),
               [&] { return render::line_chart_image(*chart, image->format, image->width, image->height); });
}

HttpResponse Api::pie(const HttpRequest& request, const std::string& job_id) {
  auto image = image_request(request);
  if (!image) return error_response(image.error());
  const std::string* of = request.query_param("of");
  const std::string kind = of == nullptr ? "mode" : *of;
  if (kind != "mode" && kind != "cores") return json_error(400, "of must be mode (user vs system) or cores");
  JobAnswer entry = load_job(request, job_id, false);
  if (!entry) return entry.take_refusal();
  auto chart = kind == "mode" ? render::cpu_mode_pie(entry->report) : render::cpu_core_pie(entry->report);
  if (!chart) return json_error(error_status(chart.error().kind), chart.error().message);
  return drawn(request, *entry, "pie/" + entry->report.usage.job.job_id + "/" + kind + "/" + image->key(),
               render::content_type(image->format),
               [&] { return render::pie_chart_image(*chart, image->format, image->width, image->height); });
}

HttpResponse Api::pdf(const HttpRequest& request, const std::string& job_id) {
  JobAnswer entry = load_job(request, job_id, false);
  if (!entry) return entry.take_refusal();
  const std::string id = entry->report.usage.job.job_id;
  const std::string base = base_url(request);
  render::PdfOptions options;
  options.job_url = base.empty() ? "" : base + "/jobs/" + id;
  HttpResponse response = drawn(request, *entry, "pdf/" + id + "/" + options.job_url, "application/pdf",
                                [&] { return render::pdf_report(entry->report, options); });
  if (response.status == 200) {
    response.headers.push_back({"Content-Disposition", "inline; filename=\"job-" + id + ".pdf\""});
  }
  return response;
}

HttpResponse Api::job_page(const HttpRequest& request, const std::string& job_id) {
  JobAnswer entry = load_job(request, job_id, false);
  if (!entry) return entry.take_refusal();
  render::JobPageLinks links;
  links.base_url = base_url(request);
  return drawn(request, *entry, "page/" + entry->report.usage.job.job_id + "/" + links.base_url,
               "text/html; charset=utf-8", [&] { return render::job_page_html(entry->report, links); });
}

HttpResponse Api::job_form(const HttpRequest& request) {
  const std::string* id_text = request.query_param("id");
  if (id_text == nullptr) return json_error(400, "give the job id: /jobs/?id=12345 or /jobs/12345");
  // Spaces around a pasted id are forgiven; anything else must be an id.
  std::string trimmed = *id_text;
  trimmed.erase(0, trimmed.find_first_not_of(" \t"));
  trimmed.erase(trimmed.find_last_not_of(" \t") + 1);
  // A SLUID goes to its page as it is: the page resolves it.
  auto id = model::parse_job_id(trimmed);
  std::optional<std::string> path_id = id ? std::optional<std::string>(id->text()) : model::parse_sluid(trimmed);
  if (!path_id) return json_error(400, kInvalidJobId);
  HttpResponse response;
  response.status = 303;
  response.headers.push_back({"Location", base_url(request) + "/jobs/" + *path_id});
  response.body = "see /jobs/" + *path_id + "\n";
  return response;
}

}  // namespace petricore::serve
