// Content-Encoding: gzip in serve (serve/compression) and the DEFLATE helper
// under it (core/deflate): which requests get gzip, which bodies are
// compressed, and that what is sent inflates back to the original bytes.
#include "serve/compression.hpp"
#include "core/deflate.hpp"

#include <zlib.h>
#include "catch.hpp"

#include <random>
#include <string>

using namespace petricore;
using namespace petricore::serve;

namespace {

HttpRequest with_accept(const char* accept_encoding) {
  HttpRequest request = make_request("GET", "/jobs/1");
  if (accept_encoding) request.headers.push_back({"Accept-Encoding", accept_encoding});
  return request;
}

// zlib's own decoder, gzip or zlib detected from the header (windowBits 15 + 32).
std::string inflate_all(const std::string& data) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 32) == Z_OK);
  std::string out;
  char buffer[16384];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
  }
  inflateEnd(&z);
  REQUIRE(rc == Z_STREAM_END);
  return out;
}

std::string json_body(std::size_t bytes) {
  std::string body = "{\"samples\": [";
  for (int i = 0; body.size() < bytes; ++i) body += std::to_string(i % 97) + ", ";
  return body + "0]}";
}

}  // namespace

TEST_CASE("deflate_bytes: gzip and zlib streams inflate back to the input", "[compression]") {
  const std::string text = json_body(100000);
  const std::string gz = deflate_bytes(text, 6, DeflateWrapper::Gzip);
  REQUIRE(gz.size() > 18);
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);  // gzip magic
  CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
  CHECK(gz.size() < text.size() / 4);
  CHECK(inflate_all(gz) == text);
  CHECK(inflate_all(deflate_bytes(text, 1, DeflateWrapper::Zlib)) == text);
  CHECK(inflate_all(deflate_bytes("", 6, DeflateWrapper::Gzip)).empty());
}

TEST_CASE("accepts_gzip reads Accept-Encoding with q-values", "[compression]") {
  CHECK(accepts_gzip(with_accept("gzip")));
  CHECK(accepts_gzip(with_accept("gzip, deflate, br")));
  CHECK(accepts_gzip(with_accept("deflate, GZIP;Q=0.5")));
  CHECK(accepts_gzip(with_accept("x-gzip")));
  CHECK(accepts_gzip(with_accept("*")));
  CHECK(accepts_gzip(with_accept(" br ; q=1 , gzip ; q=0.001 ")));
  CHECK_FALSE(accepts_gzip(with_accept(nullptr)));
  CHECK_FALSE(accepts_gzip(with_accept("")));
  CHECK_FALSE(accepts_gzip(with_accept("identity")));
  CHECK_FALSE(accepts_gzip(with_accept("deflate, br")));
  CHECK_FALSE(accepts_gzip(with_accept("gzip;q=0")));
  CHECK_FALSE(accepts_gzip(with_accept("gzip;q=0, *")));  // a named gzip wins over *
  CHECK_FALSE(accepts_gzip(with_accept("*;q=0")));
  CHECK_FALSE(accepts_gzip(with_accept("gzip;q=abc")));  // garbled: identity
  CHECK_FALSE(accepts_gzip(with_accept("gzip;q=2")));
  CHECK_FALSE(accepts_gzip(with_accept("gzipper")));
}

TEST_CASE("compressible: text, JSON, XML and SVG; not PNG or PDF", "[compression]") {
  CHECK(compressible("text/html; charset=utf-8"));
  CHECK(compressible("text/plain"));
  CHECK(compressible("Application/JSON"));
  CHECK(compressible("image/svg+xml"));
  CHECK(compressible("application/xml"));
  CHECK_FALSE(compressible("image/png"));
  CHECK_FALSE(compressible("application/pdf"));
  CHECK_FALSE(compressible(""));
}

TEST_CASE("gzip_response compresses large text for a client that accepts gzip", "[compression]") {
  const std::string body = json_body(20000);
  HttpResponse response = json_response(body);
  gzip_response(with_accept("gzip, deflate"), response, kGzipLevel);
  REQUIRE(response.header("Content-Encoding") != nullptr);
  CHECK(*response.header("Content-Encoding") == "gzip");
  REQUIRE(response.header("Vary") != nullptr);
  CHECK(*response.header("Vary") == "Accept-Encoding");
  CHECK(response.body.size() < body.size() / 4);
  CHECK(inflate_all(response.body) == body);
  CHECK(response.content_type == "application/json");

  SECTION("a client without gzip gets the bytes as they are, with Vary") {
    HttpResponse plain = json_response(body);
    gzip_response(with_accept(nullptr), plain, kGzipLevel);
    CHECK(plain.body == body);
    CHECK(plain.header("Content-Encoding") == nullptr);
    CHECK(plain.header("Vary") != nullptr);
  }
  SECTION("a small body is not worth it") {
    HttpResponse small = json_response("{\"ok\": true}");
    gzip_response(with_accept("gzip"), small, kGzipLevel);
    CHECK(small.body == "{\"ok\": true}");
    CHECK(small.header("Content-Encoding") == nullptr);
  }
  SECTION("PNG is left alone, without Vary") {
    HttpResponse png;
    png.content_type = "image/png";
    png.body = std::string(5000, 'x');
    gzip_response(with_accept("gzip"), png, kGzipLevel);
    CHECK(png.body == std::string(5000, 'x'));
    CHECK(png.header("Content-Encoding") == nullptr);
    CHECK(png.header("Vary") == nullptr);
  }
  SECTION("a body already encoded is not encoded twice") {
    HttpResponse encoded = text_response(std::string(5000, 'y'));
    encoded.headers.push_back({"Content-Encoding", "gzip"});
    encoded.headers.push_back({"Vary", "Accept-Encoding"});
    gzip_response(with_accept("gzip"), encoded, kGzipLevel);
    CHECK(encoded.body == std::string(5000, 'y'));
    CHECK(encoded.headers.size() == 2);
  }
  SECTION("a body that would not shrink stays as it is") {
    std::mt19937 random(42);
    std::string noise(4000, '\0');
    for (char& c : noise) c = static_cast<char>(random());
    HttpResponse incompressible = text_response(noise);
    gzip_response(with_accept("gzip"), incompressible, kGzipLevel);
    CHECK(incompressible.body == noise);
    CHECK(incompressible.header("Content-Encoding") == nullptr);
  }
}

TEST_CASE("a zlib stream with a preset dictionary needs that dictionary back", "[compression]") {
  const std::string dictionary = "\"time_core\": [{\"core\": \"node01_core_0\", \"unit\": \"s\"}]";
  const std::string text = "{\"time_core\": [{\"core\": \"node01_core_7\", \"unit\": \"s\"}]}";
  const std::string with = deflate_with_dictionary(text, 9, dictionary);
  CHECK(with.size() < deflate_bytes(text, 9, DeflateWrapper::Zlib).size());
  CHECK((static_cast<unsigned char>(with[1]) & 0x20) != 0);  // FDICT: the stream names its dictionary
  // Found among several by its Adler-32, whatever the order.
  CHECK(inflate_bytes(with, 1 << 20, {"another", dictionary}) == text);
  CHECK(inflate_bytes(with, 1 << 20, {dictionary}) == text);
  // Without it, or with another: malformed, never garbage.
  CHECK_FALSE(inflate_bytes(with, 1 << 20));
  CHECK_FALSE(inflate_bytes(with, 1 << 20, {dictionary + " "}));
  // A stream without a dictionary ignores those offered.
  CHECK(inflate_bytes(deflate_bytes(text, 9, DeflateWrapper::Zlib), 1 << 20, {dictionary}) == text);
}
