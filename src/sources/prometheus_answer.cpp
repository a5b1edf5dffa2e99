#include "sources/prometheus_answer.hpp"

#include "core/log.hpp"
#include "core/one_line.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/error.hpp>
#include <boost/json/parse_options.hpp>

#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

// How it reads: a SAX handler keeps a stack of what each open object or
// array is (the root, "data", "data.result", one of its elements, ...). A
// value's meaning comes from the container it is in and, in an object, the
// key before it. Wrong types are not fatal when met, because a later
// duplicate key replaces them (as in a document tree); each is remembered as
// the problem of the value it belongs to, and finish() judges the answer in
// the order the tree-based decoder did.

namespace petricore::sources {
namespace {

using model::Sample;
using model::Series;
namespace json = boost::json;

constexpr std::size_t kStartBytes = 200;
constexpr std::size_t kMaxWarnings = 20;
constexpr const char* kNotPair = "a sample is not a [time, \"value\"] pair";

// What an open object or array is.
enum class Role : unsigned char { Skip, Root, Warnings, Data, Result, Element, Metric, Values, Pair };
// What the value after a key is.
enum class Slot : unsigned char {
  Other,
  Status,
  ErrorType,
  Error,
  Warnings,
  Data,
  ResultType,
  Result,
  Metric,
  Values,
  Value,
  Label
};
enum class Kind : unsigned char { Object, Array, String, Number, Other };

Slot slot_of(Role container, std::string_view key) {
  switch (container) {
    case Role::Root:
      if (key == "status") return Slot::Status;
      if (key == "errorType") return Slot::ErrorType;
      if (key == "error") return Slot::Error;
      if (key == "warnings") return Slot::Warnings;
      if (key == "data") return Slot::Data;
      return Slot::Other;
    case Role::Data:
      if (key == "resultType") return Slot::ResultType;
      if (key == "result") return Slot::Result;
      return Slot::Other;
    case Role::Element:
      if (key == "metric") return Slot::Metric;
      if (key == "values") return Slot::Values;
      if (key == "value") return Slot::Value;
      return Slot::Other;
    case Role::Metric:
      return Slot::Label;
    default:
      return Slot::Other;
  }
}

// Prometheus sends "NaN", "+Inf", "-Inf" and plain decimals, always as
// strings. std::from_chars is locale-independent (unlike strtod) but takes
// no leading '+'.
bool parse_sample_value(std::string_view text, double& out) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

Error malformed(std::string why) {
  return unavailable("malformed response: " + std::move(why));
}

// One [<time>, "<value>"] pair, read element by element.
struct PairReading {
  enum class Time : unsigned char { NotNumber, NotFinite, Ok };
  enum class Value : unsigned char { NotString, NotNumber, Ok };
  std::size_t count = 0;
  Time time = Time::NotNumber;
  Value value = Value::NotString;
  Sample sample;
  std::string bad_value;  // shortened, for the message

  void add(Kind kind, double number, std::string_view text) {
    ++count;
    if (count == 1) {
      // Boost.JSON reads 75e6760 as infinity: no instant, and the analysis
      // would divide by durations built from it.
      time = kind != Kind::Number ? Time::NotNumber : std::isfinite(number) ? Time::Ok : Time::NotFinite;
      sample.time = number;
    } else if (count == 2) {
      if (kind != Kind::String) {
        value = Value::NotString;
      } else if (parse_sample_value(text, sample.value)) {
        value = Value::Ok;
      } else {
        value = Value::NotNumber;
        bad_value = one_line(text, 40);
      }
    }
  }

  // Empty when the pair is a sample.
  std::string problem() const {
    if (count != 2) return kNotPair;
    if (time == Time::NotNumber) return "a sample time is not a number";
    if (time == Time::NotFinite) return "a sample time is not finite";
    if (value == Value::NotString) return "a sample value is not a string";
    if (value == Value::NotNumber) return "sample value '" + bad_value + "' is not a number";
    return {};
  }
};

// One element of "data.result" as a series: its labels, its "values" (a
// matrix's) and its "value" (a vector's); the result type may come last.
struct ElementReading {
  Series series;  // labels and the "values" samples
  std::optional<Sample> value;
  std::set<std::string> bad_labels;
  std::string metric_problem, values_problem, value_problem;
};

// "data.result", read as a matrix, a vector and a scalar at once (the
// result type may come after it); a second "result" key starts it afresh.
struct ResultReading {
  bool present = false, is_array = false;
  PairReading as_pair;  // read as a scalar's pair
  std::vector<Series> series;
  std::vector<std::optional<Sample>> values;   // each series's "value"
  std::string matrix_problem, vector_problem;  // of the first element that has one
  ElementReading element;                      // the one being read
  PairReading pair;                            // the sample being read in it
  bool pair_in_values = false;

  // Neither the matrix nor the vector reading can succeed.
  bool lost() const { return !matrix_problem.empty() && !vector_problem.empty(); }
};

// Everything under "data"; a second "data" key starts it afresh.
struct DataReading {
  bool present = false, is_object = false;
  std::string result_type;
  ResultReading result;
};

class Handler {
 public:
  // As a Boost.JSON document would allow: our answer cap is far below.
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code&) {
    open_.push_back(arrive(Kind::Object));
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) {
    close();
    return true;
  }
  bool on_array_begin(json::error_code&) {
    open_.push_back(arrive(Kind::Array));
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) {
    close();
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_part(s);
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    key_part(s);
    key_done_ = true;
    slot_ = slot_of(open_.back(), key_);
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    if (wants_text()) text_.append(s.data(), s.size());
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    if (wants_text()) text_.append(s.data(), s.size());
    arrive(Kind::String, 0, text_);
    text_.clear();
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
    arrive(Kind::Number, static_cast<double>(i));
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) {
    arrive(Kind::Number, static_cast<double>(u));
    return true;
  }
  bool on_double(double d, json::string_view, json::error_code&) {
    arrive(Kind::Number, d);
    return true;
  }
  bool on_bool(bool, json::error_code&) {
    arrive(Kind::Other);
    return true;
  }
  bool on_null(json::error_code&) {
    arrive(Kind::Other);
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

  // The answer, judged once the document is whole and valid JSON.
  Result<std::vector<Series>> judge(bool& api_error) {
    if (!root_is_object_) return malformed("not a JSON object");
    if (status_ == "error") {
      if (error_type_.empty()) error_type_ = "error";
      api_error = true;
      return unavailable(one_line(error_type_, 60) + ": " +
                         (error_.empty() ? "(no reason given)" : one_line(error_, 300)));
    }
    if (status_ != "success") return malformed("\"status\" is neither \"success\" nor \"error\"");
    for (const std::string& warning : warnings_) log::debug("Prometheus warning: " + warning);

    if (!data_.present || !data_.is_object) return malformed("no \"data\" object");
    ResultReading& result = data_.result;
    if (!result.present) return malformed("no \"data.result\"");
    const std::string& type = data_.result_type;
    if (type == "matrix" || type == "vector") {
      if (!result.is_array) return malformed("\"data.result\" is not an array");
      const bool matrix = type == "matrix";
      const std::string& problem = matrix ? result.matrix_problem : result.vector_problem;
      if (!problem.empty()) return malformed(problem);
      if (!matrix) {
        for (std::size_t i = 0; i < result.series.size(); ++i) {
          result.series[i].samples.clear();
          if (result.values[i]) result.series[i].samples.push_back(*result.values[i]);
        }
      }
      return std::move(result.series);
    }
    if (type == "scalar") {
      std::string problem = result.as_pair.problem();
      if (!problem.empty()) return malformed(std::move(problem));
      std::vector<Series> series(1);
      series[0].samples.push_back(result.as_pair.sample);
      return series;
    }
    if (type == "string") return malformed("a string result, where series were expected");
    return malformed("unknown resultType '" + one_line(type, 40) + "'");
  }

 private:
  std::vector<Role> open_;  // the open containers, innermost last
  Slot slot_ = Slot::Other;
  std::string key_, text_;
  bool key_done_ = false;

  bool root_is_object_ = false;
  std::string status_, error_type_, error_;
  std::vector<std::string> warnings_;
  DataReading data_;

  void key_part(json::string_view s) {
    if (key_done_) {
      key_.clear();
      key_done_ = false;
    }
    key_.append(s.data(), s.size());
  }

  // Only strings that are kept are gathered: a long one elsewhere costs nothing.
  bool wants_text() const {
    if (open_.empty()) return false;
    switch (open_.back()) {
      case Role::Root:
        return slot_ == Slot::Status || slot_ == Slot::ErrorType || slot_ == Slot::Error;
      case Role::Data:
        return slot_ == Slot::ResultType;
      case Role::Warnings:
        return warnings_.size() < kMaxWarnings;
      case Role::Metric:
        return true;
      case Role::Pair:
        return data_.result.pair.count == 1;
      case Role::Result:
        return data_.result.as_pair.count == 1;
      default:
        return false;
    }
  }

  // A value begins (a container) or is whole (anything else); returns what
  // a container is.
  Role arrive(Kind kind, double number = 0, std::string_view text = {}) {
    if (open_.empty()) {
      root_is_object_ = kind == Kind::Object;
      return root_is_object_ ? Role::Root : Role::Skip;
    }
    switch (open_.back()) {
      case Role::Root:
        return in_root(kind, text);
      case Role::Warnings:
        if (kind == Kind::String && warnings_.size() < kMaxWarnings) warnings_.push_back(one_line(text, 300));
        return Role::Skip;
      case Role::Data:
        return in_data(kind, text);
      case Role::Result:
        return in_result(kind, number, text);
      case Role::Element:
        return in_element(kind);
      case Role::Metric:
        label(kind, text);
        return Role::Skip;
      case Role::Values:
        if (kind == Kind::Array) return begin_pair(true);
        sample_failed(kNotPair);
        return Role::Skip;
      case Role::Pair:
        data_.result.pair.add(kind, number, text);
        return Role::Skip;
      case Role::Skip:
        return Role::Skip;
    }
    return Role::Skip;
  }

  static std::string string_or_empty(Kind kind, std::string_view text) {
    return kind == Kind::String ? std::string(text) : std::string();
  }

  Role in_root(Kind kind, std::string_view text) {
    switch (slot_) {
      case Slot::Status:
        status_ = string_or_empty(kind, text);
        return Role::Skip;
      case Slot::ErrorType:
        error_type_ = string_or_empty(kind, text);
        return Role::Skip;
      case Slot::Error:
        error_ = string_or_empty(kind, text);
        return Role::Skip;
      case Slot::Warnings:
        warnings_.clear();
        return kind == Kind::Array ? Role::Warnings : Role::Skip;
      case Slot::Data:
        data_ = DataReading{};
        data_.present = true;
        data_.is_object = kind == Kind::Object;
        return data_.is_object ? Role::Data : Role::Skip;
      default:
        return Role::Skip;
    }
  }

  Role in_data(Kind kind, std::string_view text) {
    if (slot_ == Slot::ResultType) {
      data_.result_type = string_or_empty(kind, text);
      return Role::Skip;
    }
    if (slot_ != Slot::Result) return Role::Skip;
    data_.result = ResultReading{};
    data_.result.present = true;
    data_.result.is_array = kind == Kind::Array;
    return data_.result.is_array ? Role::Result : Role::Skip;
  }

  Role in_result(Kind kind, double number, std::string_view text) {
    data_.result.as_pair.add(kind, number, text);
    if (kind != Kind::Object) {
      const std::string problem = "a result element is not an object";
      note_problems(problem, problem);
      return Role::Skip;
    }
    data_.result.element = ElementReading{};
    return Role::Element;
  }

  Role in_element(Kind kind) {
    ElementReading& e = data_.result.element;
    switch (slot_) {
      case Slot::Metric:
        e.series.labels.clear();
        e.bad_labels.clear();
        e.metric_problem.clear();
        if (kind == Kind::Object) return Role::Metric;
        e.metric_problem = "\"metric\" is not an object";
        return Role::Skip;
      case Slot::Values:
        // A series with native-histogram samples only has "histograms" and
        // no "values": it has no float samples for us.
        e.series.samples.clear();
        e.values_problem.clear();
        if (kind == Kind::Array) return Role::Values;
        e.values_problem = "\"values\" is not an array";
        return Role::Skip;
      case Slot::Value:
        e.value.reset();
        e.value_problem.clear();
        if (kind == Kind::Array) return begin_pair(false);
        e.value_problem = kNotPair;
        return Role::Skip;
      default:
        return Role::Skip;
    }
  }

  Role begin_pair(bool in_values) {
    data_.result.pair = PairReading{};
    data_.result.pair_in_values = in_values;
    return Role::Pair;
  }

  void label(Kind kind, std::string_view text) {
    ElementReading& e = data_.result.element;
    if (kind == Kind::String) {
      e.series.labels.insert_or_assign(key_, std::string(text));
      e.bad_labels.erase(key_);
    } else {
      e.series.labels.erase(key_);
      e.bad_labels.insert(key_);
    }
  }

  // A sample of "values" that is not one: the element's matrix reading fails.
  void sample_failed(std::string problem) {
    ElementReading& e = data_.result.element;
    if (!e.values_problem.empty()) return;
    e.values_problem = std::move(problem);
    e.series.samples = {};
  }

  void close() {
    const Role role = open_.back();
    open_.pop_back();
    if (role == Role::Pair) {
      close_pair();
    } else if (role == Role::Metric) {
      ElementReading& e = data_.result.element;
      if (!e.bad_labels.empty())
        e.metric_problem = "label '" + one_line(*e.bad_labels.begin(), 40) + "' is not a string";
    } else if (role == Role::Element) {
      close_element();
    }
  }

  void close_pair() {
    ResultReading& r = data_.result;
    ElementReading& e = r.element;
    std::string problem = r.pair.problem();
    if (!r.pair_in_values) {
      if (problem.empty()) {
        e.value = r.pair.sample;
      } else {
        e.value_problem = std::move(problem);
      }
      return;
    }
    if (!problem.empty()) {
      sample_failed(std::move(problem));
    } else if (e.values_problem.empty() && r.matrix_problem.empty()) {
      e.series.samples.push_back(r.pair.sample);
    }
  }

  // An element's problems become the result's: the first of each reading.
  void note_problems(const std::string& matrix, const std::string& vector) {
    ResultReading& r = data_.result;
    if (r.matrix_problem.empty() && !matrix.empty()) {
      r.matrix_problem = matrix;
      for (Series& s : r.series) s.samples = {};  // the matrix reading is lost: free its samples
    }
    if (r.vector_problem.empty() && !vector.empty()) r.vector_problem = vector;
    if (r.lost()) {
      r.series = {};
      r.values = {};
    }
  }

  void close_element() {
    ResultReading& r = data_.result;
    ElementReading& e = r.element;
    const bool labelled = e.metric_problem.empty();
    note_problems(labelled ? e.values_problem : e.metric_problem, labelled ? e.value_problem : e.metric_problem);
    if (r.lost()) return;
    if (!r.matrix_problem.empty()) e.series.samples = {};
    r.series.push_back(std::move(e.series));
    r.values.push_back(e.value);
  }
};

bool json_whitespace(std::string_view bytes) {
  for (char c : bytes) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

}  // namespace

struct PrometheusAnswer::Impl {
  json::basic_parser<Handler> parser{json::parse_options{}};
  json::error_code error;  // set once the body is not JSON
  std::size_t size = 0;
  std::string start;
  bool api_error = false;
};

PrometheusAnswer::PrometheusAnswer() : impl_(std::make_unique<Impl>()) {}
PrometheusAnswer::~PrometheusAnswer() = default;

bool PrometheusAnswer::feed(std::string_view bytes) {
  Impl& d = *impl_;
  if (d.start.size() < kStartBytes) d.start.append(bytes.substr(0, kStartBytes - d.start.size()));
  d.size += bytes.size();
  if (!d.error && !bytes.empty()) {
    if (d.parser.done()) {
      // A whole document, then more than whitespace: as json::parse says.
      if (!json_whitespace(bytes)) d.error = json::error::extra_data;
    } else {
      const std::size_t used = d.parser.write_some(true, bytes.data(), bytes.size(), d.error);
      if (!d.error && used < bytes.size() && !json_whitespace(bytes.substr(used))) d.error = json::error::extra_data;
    }
  }
  return !d.error || d.start.size() < kStartBytes;
}

Result<std::vector<model::Series>> PrometheusAnswer::finish() {
  Impl& d = *impl_;
  if (!d.error && !d.parser.done()) {
    static const char nothing = '\0';
    d.parser.write_some(false, &nothing, 0, d.error);
  }
  if (d.error) {
    if (d.size == 0) return malformed("empty body");
    return malformed("not JSON (" + d.error.message() + "): " + one_line(d.start, 80));
  }
  return d.parser.handler().judge(d.api_error);
}

bool PrometheusAnswer::api_error() const {
  return impl_->api_error;
}

std::size_t PrometheusAnswer::size() const {
  return impl_->size;
}

std::string_view PrometheusAnswer::start() const {
  return impl_->start;
}

Result<std::vector<model::Series>> decode_query_response(std::string_view body) {
  PrometheusAnswer answer;
  answer.feed(body);
  return answer.finish();
}

}  // namespace petricore::sources
