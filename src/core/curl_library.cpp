#include "core/curl_library.hpp"

#include "core/shared_library.hpp"

#include <stdexcept>
#include <string>

namespace petricore {
namespace {

CurlLibrary load() {
  SharedLibrary so("libcurl.so.4");
  CurlLibrary lib{};
  so.resolve("curl_easy_init", lib.easy_init);
  so.resolve("curl_easy_cleanup", lib.easy_cleanup);
  so.resolve("curl_easy_setopt", lib.easy_setopt);
  so.resolve("curl_easy_perform", lib.easy_perform);
  so.resolve("curl_easy_getinfo", lib.easy_getinfo);
  so.resolve("curl_easy_strerror", lib.easy_strerror);
  so.resolve("curl_easy_escape", lib.easy_escape);
  so.resolve("curl_free", lib.free);
  so.resolve("curl_slist_append", lib.slist_append);
  so.resolve("curl_slist_free_all", lib.slist_free_all);
  so.resolve("curl_url", lib.url);
  so.resolve("curl_url_set", lib.url_set);
  so.resolve("curl_url_cleanup", lib.url_cleanup);
  so.resolve("curl_url_strerror", lib.url_strerror);
  decltype(&::curl_global_init) global_init = nullptr;
  so.resolve("curl_global_init", global_init);
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
