// libcurl, loaded on first use instead of linked (see core/shared_library.hpp:
// linked, its ~30 dependencies cost the node daemon about 5 MiB of RSS).
// Only the functions petricore calls are looked up.
#pragma once

#include <curl/curl.h>

#include <memory>

namespace petricore {

struct CurlLibrary {
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_easy_escape) easy_escape;
  decltype(&::curl_free) free;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_url) url;
  decltype(&::curl_url_set) url_set;
  decltype(&::curl_url_cleanup) url_cleanup;
  decltype(&::curl_url_strerror) url_strerror;
};

// Loads libcurl.so.4 and runs curl_global_init once per process (thread-safe).
// Throws std::runtime_error with a one-line reason when the library or one of
// its functions cannot be loaded.
const CurlLibrary& curl_library();

// RAII for the handles petricore creates.
struct CurlEasyDeleter {
  void operator()(CURL* handle) const { curl_library().easy_cleanup(handle); }
};
using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;

struct CurlSlistDeleter {
  void operator()(curl_slist* list) const { curl_library().slist_free_all(list); }
};
using CurlSlist = std::unique_ptr<curl_slist, CurlSlistDeleter>;

}  // namespace petricore
