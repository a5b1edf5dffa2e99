// The decoder of Prometheus answers that sources/prometheus_answer replaced:
// it parsed the whole body into a Boost.JSON document, then walked it. Kept
// here, word for word but for the log line, as the reference the streaming
// decoder is held to (prometheus_json_fuzz.cpp, prometheus_json_test.cpp):
// the same answers accepted, the same series, the same messages.
#pragma once

#include "core/one_line.hpp"
#include "core/result.hpp"
#include "model/series.hpp"

#include <boost/json.hpp>

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace petricore::reference {

using model::Sample;
using model::Series;
namespace json = boost::json;

// Prometheus sends "NaN", "+Inf", "-Inf" and plain decimals, always as
// strings. std::from_chars is locale-independent (unlike strtod) but takes
// no leading '+'.
inline bool parse_sample_value(std::string_view text, double& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

inline Error malformed(std::string why) {
  return unavailable("malformed response: " + std::move(why));
}

// One [<time>, "<value>"] pair.
inline bool decode_sample(const json::value& pair, Sample& out, std::string& why) {
  const json::array* a = pair.if_array();
  if (!a || a->size() != 2) {
    why = "a sample is not a [time, \"value\"] pair";
    return false;
  }
  json::error_code ec;
  out.time = (*a)[0].to_number<double>(ec);
  if (ec) {
    why = "a sample time is not a number";
    return false;
  }
  // Boost.JSON reads 75e6760 as infinity: no instant, and the analysis
  // would divide by durations built from it.
  if (!std::isfinite(out.time)) {
    why = "a sample time is not finite";
    return false;
  }
  const json::string* text = (*a)[1].if_string();
  if (!text) {
    why = "a sample value is not a string";
    return false;
  }
  if (!parse_sample_value(std::string_view(text->data(), text->size()), out.value)) {
    why = "sample value '" + one_line(std::string_view(text->data(), text->size()), 40) + "' is not a number";
    return false;
  }
  return true;
}

inline bool decode_labels(const json::value* metric, Series& out, std::string& why) {
  if (!metric) return true;  // absent: no labels
  const json::object* labels = metric->if_object();
  if (!labels) {
    why = "\"metric\" is not an object";
    return false;
  }
  for (const auto& [name, value] : *labels) {
    const json::string* text = value.if_string();
    if (!text) {
      why = "label '" + one_line(std::string_view(name.data(), name.size()), 40) + "' is not a string";
      return false;
    }
    out.labels.emplace(std::string(name.data(), name.size()), std::string(text->data(), text->size()));
  }
  return true;
}

// A "matrix" (values) or "vector" (value) element.
inline bool decode_series(const json::value& element, bool matrix, Series& out, std::string& why) {
  const json::object* object = element.if_object();
  if (!object) {
    why = "a result element is not an object";
    return false;
  }
  if (!decode_labels(object->if_contains("metric"), out, why)) return false;
  if (matrix) {
    // A series with native-histogram samples only has "histograms" and no
    // "values": it has no float samples for us.
    const json::value* values = object->if_contains("values");
    if (!values) return true;
    const json::array* list = values->if_array();
    if (!list) {
      why = "\"values\" is not an array";
      return false;
    }
    out.samples.reserve(list->size());
    for (const json::value& pair : *list) {
      Sample sample;
      if (!decode_sample(pair, sample, why)) return false;
      out.samples.push_back(sample);
    }
    return true;
  }
  const json::value* value = object->if_contains("value");
  if (!value) return true;  // a histogram sample
  Sample sample;
  if (!decode_sample(*value, sample, why)) return false;
  out.samples.push_back(sample);
  return true;
}

inline std::string string_field(const json::object& object, std::string_view key) {
  // Spelled out: Boost 1.75's json::string_view does not convert from std::string_view.
  const json::value* value = object.if_contains(json::string_view(key.data(), key.size()));
  const json::string* text = value ? value->if_string() : nullptr;
  return text ? std::string(text->data(), text->size()) : std::string();
}

// decode_query_response, also telling whether an error is Prometheus's own
// answer ({"status":"error"}) rather than a body that is not the API's.
inline Result<std::vector<Series>> decode_with_tree(std::string_view body, bool& api_error) {
  api_error = false;
  json::error_code ec;
  // The parsed document only lives until its series are copied out: a
  // monotonic arena makes its many small allocations nearly free.
  json::monotonic_resource arena;
  const json::value document = json::parse(json::string_view(body.data(), body.size()), ec, &arena);
  if (ec) {
    if (body.empty()) return malformed("empty body");
    return malformed("not JSON (" + ec.message() + "): " + one_line(body, 80));
  }
  const json::object* root = document.if_object();
  if (!root) return malformed("not a JSON object");
  const std::string status = string_field(*root, "status");
  if (status == "error") {
    std::string type = string_field(*root, "errorType");
    std::string error = string_field(*root, "error");
    if (type.empty()) type = "error";
    api_error = true;
    return unavailable(one_line(type, 60) + ": " + (error.empty() ? "(no reason given)" : one_line(error, 300)));
  }
  if (status != "success") return malformed("\"status\" is neither \"success\" nor \"error\"");

  if (const json::value* warnings = root->if_contains("warnings")) {
    if (const json::array* list = warnings->if_array()) {
      for (const json::value& w : *list) {
        if (const json::string* text = w.if_string()) {
          (void)text;
        }
      }
    }
  }

  const json::value* data_value = root->if_contains("data");
  const json::object* data = data_value ? data_value->if_object() : nullptr;
  if (!data) return malformed("no \"data\" object");
  const std::string type = string_field(*data, "resultType");
  const json::value* result = data->if_contains("result");
  if (!result) return malformed("no \"data.result\"");

  std::vector<Series> series;
  std::string why;
  if (type == "matrix" || type == "vector") {
    const json::array* elements = result->if_array();
    if (!elements) return malformed("\"data.result\" is not an array");
    series.reserve(elements->size());
    for (const json::value& element : *elements) {
      Series s;
      if (!decode_series(element, type == "matrix", s, why)) return malformed(why);
      series.push_back(std::move(s));
    }
    return series;
  }
  if (type == "scalar") {
    Series s;
    if (!decode_sample(*result, s.samples.emplace_back(), why)) return malformed(why);
    series.push_back(std::move(s));
    return series;
  }
  if (type == "string") return malformed("a string result, where series were expected");
  return malformed("unknown resultType '" + one_line(type, 40) + "'");
}

// Whether two decodings agree: the same series, labels and samples (NaN
// equal to NaN), or errors of the same kind and message. A label that is not
// a string may be named differently (the tree named the first in the
// object, the stream the first in label order), and so may the reason a
// body is not JSON: Boost.JSON's parser words some of them after where the
// pieces it was given were cut (a lone surrogate split across two pieces is
// an "illegal trailing surrogate", whole an "illegal leading" one).
inline bool same_decoding(const Result<std::vector<Series>>& a, const Result<std::vector<Series>>& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) {
    const std::string& x = a.error().message;
    const std::string& y = b.error().message;
    if (a.error().kind != b.error().kind) return false;
    for (const std::string alike : {"malformed response: label '", "malformed response: not JSON ("}) {
      if (x.rfind(alike, 0) == 0 && y.rfind(alike, 0) == 0) return true;
    }
    return x == y;
  }
  if (a->size() != b->size()) return false;
  for (std::size_t i = 0; i < a->size(); ++i) {
    const Series& s = (*a)[i];
    const Series& t = (*b)[i];
    if (s.labels != t.labels || s.samples.size() != t.samples.size()) return false;
    for (std::size_t j = 0; j < s.samples.size(); ++j) {
      const Sample& u = s.samples[j];
      const Sample& v = t.samples[j];
      if (u.time != v.time) return false;
      if (!(u.value == v.value || (std::isnan(u.value) && std::isnan(v.value)))) return false;
    }
  }
  return true;
}

}  // namespace petricore::reference
