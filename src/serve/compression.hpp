// Content-Encoding: gzip for serve's text answers (HTML pages with inline
// SVG charts, SVG, JSON, mail text): a job page of ~600 kB travels as ~150 kB.
// PNG and PDF are compressed already and stay as they are.
#pragma once

#include "serve/http_types.hpp"

#include <cstddef>
#include <string_view>

namespace petricore::serve {

// True when the request's Accept-Encoding allows gzip (gzip, x-gzip or *,
// with a q-value above 0; "gzip;q=0" refuses it).
bool accepts_gzip(const HttpRequest& request);

// Text, JSON, XML and SVG.
bool compressible(std::string_view content_type);

// Bodies smaller than this gain nothing worth a header and a CPU slice.
constexpr std::size_t kMinCompressBytes = 1024;
// zlib's default: a 600 kB job page in ~25 ms to a quarter of its size
// (level 1: ~9 ms, a third).
constexpr int kGzipLevel = 6;

// A body of that type and size is worth gzip for this client: compressible,
// at least kMinCompressBytes, and the client accepts gzip.
bool should_gzip(const HttpRequest& request, std::string_view content_type, std::size_t body_bytes);

// Compresses a compressible response body of kMinCompressBytes or more for a
// client that accepts gzip (level 1-9), sets Content-Encoding: gzip, and
// adds Vary: Accept-Encoding to every compressible response so that caches
// keep the two forms apart. A body that already has a Content-Encoding, or
// that would not shrink, is left as it is.
void gzip_response(const HttpRequest& request, HttpResponse& response, int level);

}  // namespace petricore::serve
