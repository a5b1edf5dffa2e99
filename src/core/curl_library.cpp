#include "core/curl_library.hpp"

#include "core/shared_library.hpp"

#include <stdexcept>
#include <string>

namespace petricore {
namespace {

CurlLibrary load() {
  SharedLibrary so("libcurl.so.4");
  CurlLibrary lib{};
  PETRICORE_CURL_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  const auto global_init = PETRICORE_DLSYM(so, curl_global_init);
  // Once, before any handle exists; never cleaned up, since cleanup at exit
  // would race with threads still running.
  CURLcode rc = global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) throw std::runtime_error("cannot initialise libcurl (code " + std::to_string(rc) + ")");
  return lib;
}

}  // namespace

const CurlLibrary& curl_library() {
  // A function-local static: thread-safe, and a failed load throws again on
  // the next call.
  static const CurlLibrary lib = load();
  return lib;
}

}  // namespace petricore
