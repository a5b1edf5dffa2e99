// Decoding the Prometheus HTTP API's query answers (sources/prometheus_client)
// and quoting label values for PromQL.
#include "sources/prometheus_answer.hpp"
#include "sources/prometheus_client.hpp"
#include "sources/promql.hpp"

#include "../fuzz/prometheus_answer_tree.hpp"
#include "catch.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

using petricore::Error;
using petricore::sources::decode_query_response;
using petricore::sources::PrometheusAnswer;
using petricore::sources::PrometheusClient;
using petricore::sources::promql_string;

namespace {

std::string error_of(std::string_view body) {
  auto decoded = decode_query_response(body);
  REQUIRE_FALSE(decoded.ok());
  CHECK(decoded.error().kind == Error::Kind::Unavailable);
  CHECK(decoded.error().message.find('\n') == std::string::npos);
  return decoded.error().message;
}

auto decode_in_pieces(std::string_view body, std::size_t piece) {
  PrometheusAnswer answer;
  for (std::size_t at = 0; at < body.size(); at += piece) {
    if (!answer.feed(body.substr(at, piece))) break;
  }
  return answer.finish();
}

}  // namespace

TEST_CASE("matrix result with labels and several samples", "[prometheus]") {
  auto decoded = decode_query_response(R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"__name__":"jobs_cpu_percent","instance":"node1","slurm_job":"42"},
     "values":[[1700000000,"12.5"],[1700000015.5,"100"],[1700000030.125,"1e3"]]},
    {"metric":{"__name__":"jobs_cpu_percent","instance":"node2","slurm_job":"42"},
     "values":[[1700000000,"0"]]}]}})");
  REQUIRE(decoded.ok());
  REQUIRE(decoded->size() == 2);
  const auto& first = (*decoded)[0];
  CHECK(first.label("__name__") == "jobs_cpu_percent");
  CHECK(first.label("instance") == "node1");
  CHECK(first.label("slurm_job") == "42");
  CHECK(first.label("absent").empty());
  REQUIRE(first.samples.size() == 3);
  CHECK(first.samples[0].time == 1700000000.0);
  CHECK(first.samples[0].value == 12.5);
  CHECK(first.samples[1].time == 1700000015.5);
  CHECK(first.samples[2].time == 1700000030.125);
  CHECK(first.samples[2].value == 1000.0);
  CHECK((*decoded)[1].label("instance") == "node2");
  CHECK((*decoded)[1].samples.size() == 1);
}

TEST_CASE("vector result has one sample per series", "[prometheus]") {
  auto decoded = decode_query_response(R"({"status":"success","data":{"resultType":"vector","result":[
    {"metric":{"instance":"node1","core":"3"},"value":[1795975664.760,"42"]}]}})");
  REQUIRE(decoded.ok());
  REQUIRE(decoded->size() == 1);
  CHECK((*decoded)[0].label("core") == "3");
  REQUIRE((*decoded)[0].samples.size() == 1);
  CHECK((*decoded)[0].samples[0].time == Approx(1795975664.760));
  CHECK((*decoded)[0].samples[0].value == 42.0);
}

TEST_CASE("scalar result becomes one series without labels", "[prometheus]") {
  auto decoded =
      decode_query_response(R"({"status":"success","data":{"resultType":"scalar","result":[1700000000.5,"7"]}})");
  REQUIRE(decoded.ok());
  REQUIRE(decoded->size() == 1);
  CHECK((*decoded)[0].labels.empty());
  REQUIRE((*decoded)[0].samples.size() == 1);
  CHECK((*decoded)[0].samples[0].time == 1700000000.5);
  CHECK((*decoded)[0].samples[0].value == 7.0);
}

TEST_CASE("NaN and infinities are kept as Prometheus sends them", "[prometheus]") {
  auto decoded = decode_query_response(R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{},"values":[[1,"NaN"],[2,"+Inf"],[3,"-Inf"],[4,"-0.25"],[5,"+2"]]}]}})");
  REQUIRE(decoded.ok());
  const auto& samples = (*decoded)[0].samples;
  REQUIRE(samples.size() == 5);
  CHECK(std::isnan(samples[0].value));
  CHECK(std::isinf(samples[1].value));
  CHECK(samples[1].value > 0);
  CHECK(std::isinf(samples[2].value));
  CHECK(samples[2].value < 0);
  CHECK(samples[3].value == -0.25);
  CHECK(samples[4].value == 2.0);
}

TEST_CASE("empty results are success with no series", "[prometheus]") {
  for (const char* type : {"matrix", "vector"}) {
    auto decoded = decode_query_response(std::string(R"({"status":"success","data":{"resultType":")") + type +
                                         R"(","result":[]}})");
    REQUIRE(decoded.ok());
    CHECK(decoded->empty());
  }
}

TEST_CASE("a series without samples or labels is kept empty", "[prometheus]") {
  // Native-histogram series carry "histograms" instead of "values".
  auto decoded = decode_query_response(R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"__name__":"h"},"histograms":[[1,{"count":"1","sum":"1"}]]},{"values":[[1,"1"]]}]}})");
  REQUIRE(decoded.ok());
  REQUIRE(decoded->size() == 2);
  CHECK((*decoded)[0].label("__name__") == "h");
  CHECK((*decoded)[0].samples.empty());
  CHECK((*decoded)[1].labels.empty());
  CHECK((*decoded)[1].samples.size() == 1);
}

TEST_CASE("warnings do not hide the data", "[prometheus]") {
  auto decoded = decode_query_response(R"({"status":"success","warnings":["partial response"],
    "data":{"resultType":"vector","result":[{"metric":{"a":"b"},"value":[1,"1"]}]}})");
  REQUIRE(decoded.ok());
  CHECK(decoded->size() == 1);
}

TEST_CASE("an API error names its errorType and reason", "[prometheus]") {
  const std::string message =
      error_of(R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected character: '@'"})");
  CHECK(message.find("bad_data") != std::string::npos);
  CHECK(message.find("parse error: unexpected character") != std::string::npos);

  const std::string timeout =
      error_of(R"({"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"})");
  CHECK(timeout.find("timeout: query timed out") != std::string::npos);

  const std::string bare = error_of(R"({"status":"error"})");
  CHECK(bare.find("no reason given") != std::string::npos);
}

TEST_CASE("a multi-line API error becomes one line", "[prometheus]") {
  const std::string message = error_of(R"({"status":"error","errorType":"execution","error":"first\nsecond"})");
  CHECK(message.find("first second") != std::string::npos);
}

TEST_CASE("malformed JSON is an error, not an exception", "[prometheus]") {
  CHECK(error_of("").find("malformed response: empty body") != std::string::npos);
  CHECK(error_of("<html>502 Bad Gateway</html>").find("not JSON") != std::string::npos);
  CHECK(error_of(R"({"status":"success","data":{"resultType":"matrix","result":[)").find("malformed") !=
        std::string::npos);
  CHECK(error_of("[1,2,3]").find("not a JSON object") != std::string::npos);
}

TEST_CASE("a sample time JSON reads as infinity is an error", "[prometheus][fuzz]") {
  // test/fuzz/regressions/prometheus_json/infinite-sample-time: 75e6760 parsed to +inf and reached the series.
  CHECK(
      error_of(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[75e6760,"42"]}]}})")
          .find("time is not finite") != std::string::npos);
  CHECK(error_of(R"({"status":"success","data":{"resultType":"scalar","result":[-1e400,"1"]}})")
            .find("time is not finite") != std::string::npos);
}

TEST_CASE("wrong types in the answer are errors", "[prometheus]") {
  SECTION("status") {
    CHECK(error_of(R"({"status":1})").find("status") != std::string::npos);
  }
  SECTION("no data") {
    CHECK(error_of(R"({"status":"success"})").find("data") != std::string::npos);
  }
  SECTION("no result") {
    CHECK(error_of(R"({"status":"success","data":{"resultType":"matrix"}})").find("data.result") != std::string::npos);
  }
  SECTION("result not an array") {
    CHECK(error_of(R"({"status":"success","data":{"resultType":"vector","result":{}}})").find("not an array") !=
          std::string::npos);
  }
  SECTION("metric not an object") {
    CHECK(error_of(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":[],"value":[1,"1"]}]}})")
              .find("\"metric\"") != std::string::npos);
  }
  SECTION("label value not a string") {
    CHECK(error_of(
              R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"core":3},"value":[1,"1"]}]}})")
              .find("label 'core'") != std::string::npos);
  }
  SECTION("value as a number instead of a string") {
    CHECK(error_of(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,1]}]}})")
              .find("not a string") != std::string::npos);
  }
  SECTION("value that is not a number") {
    CHECK(error_of(
              R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"12abc"]]}]}})")
              .find("'12abc' is not a number") != std::string::npos);
    error_of(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,""]]}]}})");
    error_of(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"++1"]]}]}})");
    error_of(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1," 1"]]}]}})");
  }
  SECTION("time that is not a number") {
    CHECK(error_of(R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":["1","1"]}]}})")
              .find("time is not a number") != std::string::npos);
  }
  SECTION("sample that is not a pair") {
    error_of(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1]]}]}})");
    error_of(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[1,"1"]}]}})");
    error_of(R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":{}}]}})");
    error_of(R"({"status":"success","data":{"resultType":"scalar","result":"7"}})");
  }
  SECTION("string and unknown result types") {
    CHECK(error_of(R"({"status":"success","data":{"resultType":"string","result":[1,"x"]}})").find("string") !=
          std::string::npos);
    CHECK(error_of(R"({"status":"success","data":{"resultType":"tensor","result":[]}})").find("tensor") !=
          std::string::npos);
  }
}

TEST_CASE("the streaming decoder agrees with the document tree on every recorded answer, whole or in pieces",
          "[prometheus][stream]") {
  // The fuzz corpus holds real answers (Prometheus, VictoriaMetrics, errors)
  // and the inputs that once found bugs.
  const char* fixtures = std::getenv("PETRICORE_FIXTURES");
  REQUIRE(fixtures != nullptr);
  const std::filesystem::path fuzz = std::filesystem::path(fixtures).parent_path() / "fuzz";
  int answers = 0;
  for (const char* dir : {"corpus/prometheus_json", "regressions/prometheus_json"}) {
    for (const auto& entry : std::filesystem::directory_iterator(fuzz / dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      const std::string body = text.str();
      INFO(entry.path().string());
      bool api_error = false;
      const auto tree = petricore::reference::decode_with_tree(body, api_error);
      const auto whole = decode_query_response(body);
      CHECK(petricore::reference::same_decoding(whole, tree));
      for (std::size_t piece : {1, 7, 4096})
        CHECK(petricore::reference::same_decoding(decode_in_pieces(body, piece), tree));
      ++answers;
    }
  }
  CHECK(answers > 40);
}

TEST_CASE("the last of duplicated keys wins, as in a document", "[prometheus][stream]") {
  auto decoded = decode_query_response(R"({"status":"error","status":"success",
    "data":{"resultType":"vector","result":[{"metric":{},"value":[1,"bad"]}]},
    "data":{"resultType":"scalar","resultType":"matrix","result":{},"result":[
      {"metric":[],"metric":{"a":1,"a":"x","b":"y"},"values":[[1,"nope"]],"values":[[1,"1"],[2,"2"]],"value":7}]}})");
  REQUIRE(decoded.ok());
  REQUIRE(decoded->size() == 1);
  CHECK((*decoded)[0].labels == std::map<std::string, std::string>{{"a", "x"}, {"b", "y"}});
  REQUIRE((*decoded)[0].samples.size() == 2);
  CHECK((*decoded)[0].samples[1].value == 2.0);
  // A bad value left in place is still an error.
  CHECK(error_of(R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"a":"x","a":1},"values":[]}]}})")
            .find("label 'a'") != std::string::npos);
}

TEST_CASE("the result type may come after the result", "[prometheus][stream]") {
  const std::string result = R"("result":[{"metric":{"n":"1"},"values":[[1,"10"],[2,"20"]],"value":[3,"30"]}])";
  auto matrix = decode_query_response(R"({"data":{)" + result + R"(,"resultType":"matrix"},"status":"success"})");
  REQUIRE(matrix.ok());
  CHECK((*matrix)[0].samples.size() == 2);
  auto vector = decode_query_response(R"({"data":{)" + result + R"(,"resultType":"vector"},"status":"success"})");
  REQUIRE(vector.ok());
  REQUIRE((*vector)[0].samples.size() == 1);
  CHECK((*vector)[0].samples[0].value == 30.0);
  auto scalar = decode_query_response(R"({"data":{"result":[5,"50"],"resultType":"scalar"},"status":"success"})");
  REQUIRE(scalar.ok());
  CHECK((*scalar)[0].samples[0].value == 50.0);
}

TEST_CASE("a body that stops being JSON is refused at once and its start kept", "[prometheus][stream]") {
  PrometheusAnswer answer;
  const std::string page = "<html><head><title>502 Bad Gateway</title></head>" + std::string(300, ' ') + "</html>";
  CHECK_FALSE(answer.feed(page));  // the caller stops reading here
  CHECK(answer.start().size() == 200);
  CHECK(answer.start().substr(0, 6) == "<html>");
  auto decoded = answer.finish();
  REQUIRE_FALSE(decoded.ok());
  CHECK(decoded.error().message.find("not JSON") != std::string::npos);
  CHECK_FALSE(answer.api_error());

  // Short: the decoder asks for more until it holds the page's first 200 bytes.
  PrometheusAnswer short_page;
  CHECK(short_page.feed("<html>"));
  CHECK_FALSE(short_page.feed(std::string(300, 'x')));
}

TEST_CASE("a whole answer followed by more is not JSON; whitespace after it is fine", "[prometheus][stream]") {
  const std::string answer = R"({"status":"success","data":{"resultType":"vector","result":[]}})";
  CHECK(decode_query_response(answer + " \n\t\r ").ok());
  CHECK(error_of(answer + "{}").find("not JSON (extra data)") != std::string::npos);
  CHECK(decode_in_pieces(answer + "  {}", 3).error().message.find("extra data") != std::string::npos);
  CHECK(decode_in_pieces(answer + "   ", 1).ok());
}

TEST_CASE("an API error is told apart from a malformed answer", "[prometheus][stream]") {
  PrometheusAnswer answer;
  answer.feed(R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\""})");
  CHECK_FALSE(answer.finish().ok());
  CHECK(answer.api_error());
  PrometheusAnswer other;
  other.feed(R"({"status":"success"})");
  CHECK_FALSE(other.finish().ok());
  CHECK_FALSE(other.api_error());
}

TEST_CASE("promql_string quotes and escapes label values", "[prometheus]") {
  CHECK(promql_string("") == R"("")");
  CHECK(promql_string("12345") == R"("12345")");
  CHECK(promql_string(R"(a"b)") == R"("a\"b")");
  CHECK(promql_string(R"(a\b)") == R"("a\\b")");
  CHECK(promql_string("a\nb\tc\rd") == R"("a\nb\tc\rd")");
  CHECK(promql_string(std::string("a\x01z\x7f", 4)) == R"("a\x01z\x7f")");
  CHECK(promql_string("jobs_.+") == R"("jobs_.+")");  // regex syntax is the caller's business
  CHECK(promql_string("Zoë") == "\"Zoë\"");           // UTF-8 passes through
  // An injection attempt stays inside the literal.
  CHECK(promql_string(R"(1"} or vector(1) or {x=")") == R"("1\"} or vector(1) or {x=\"")");
}

TEST_CASE("the client accepts only plain http(s) base URLs", "[prometheus]") {
  using petricore::sources::PrometheusConfig;
  CHECK_THROWS_AS(PrometheusClient(PrometheusConfig{"ftp://x", 10}), std::invalid_argument);
  CHECK_THROWS_AS(PrometheusClient(PrometheusConfig{"127.0.0.1:9090", 10}), std::invalid_argument);
  CHECK_THROWS_AS(PrometheusClient(PrometheusConfig{"http://", 10}), std::invalid_argument);
  CHECK_THROWS_AS(PrometheusClient(PrometheusConfig{"http://h:9090/?x=1", 10}), std::invalid_argument);
  CHECK_THROWS_AS(PrometheusClient(PrometheusConfig{"http://h:9090", 0}), std::invalid_argument);
  PrometheusClient client(PrometheusConfig{"http://user:secret@h:9090/prom/", 10});
  CHECK(client.url() == "http://***@h:9090/prom");  // no credentials in messages
  CHECK(client.requests() == 0);
}

TEST_CASE("an unreachable Prometheus is an Unavailable error naming the URL", "[prometheus]") {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  PrometheusClient client(petricore::sources::PrometheusConfig{"http://127.0.0.1:1", 2});
  auto result = client.query("up", 1700000000);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == Error::Kind::Unavailable);
  CHECK(result.error().message.find("http://127.0.0.1:1/api/v1/query") != std::string::npos);
  CHECK(client.requests() == 1);
  auto range = client.query_range("up", 10, 5, 15);
  REQUIRE_FALSE(range.ok());
  CHECK(range.error().kind == Error::Kind::BadInput);
}
