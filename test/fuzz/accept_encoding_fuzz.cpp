// Accept-Encoding as clients send it: the last named gzip coding decides
// (so ", gzip;q=0" appended refuses and ", gzip" appended accepts), and a
// body gzipped for a client that accepts it inflates back to itself.
#include "fuzz_check.hpp"
#include "serve/compression.hpp"

#include <zlib.h>

using namespace petricore;
using namespace petricore::serve;

namespace {

std::string gunzip(const std::string& member) {
  z_stream z{};
  FUZZ_CHECK(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK);
  std::string out(1 << 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(member.data()));
  z.avail_in = static_cast<uInt>(member.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  out.resize(z.total_out);
  inflateEnd(&z);
  FUZZ_CHECK(rc == Z_STREAM_END);
  return out;
}

bool accepts(const std::string& value) {
  HttpRequest request = make_request("GET", "/");
  request.headers.push_back({"accept-encoding", value});
  return accepts_gzip(request);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string value(fuzz::as_text(data, size));
  const bool gzip = accepts(value);
  FUZZ_CHECK(!accepts(value + ", gzip;q=0"));
  FUZZ_CHECK(accepts(value + ",gzip"));

  HttpRequest request = make_request("GET", "/");
  request.headers.push_back({"Accept-Encoding", value});
  HttpResponse response;
  response.content_type = "application/json";
  response.body = std::string(kMinCompressBytes, 'x') + value;
  const std::string body = response.body;
  gzip_response(request, response, 1);
  const std::string* encoding = response.header("Content-Encoding");
  FUZZ_CHECK(gzip == (encoding != nullptr));
  FUZZ_CHECK(response.header("Vary") != nullptr);
  if (encoding) FUZZ_CHECK(gunzip(response.body) == body);
  return 0;
}
