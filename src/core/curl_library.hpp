// libcurl, loaded on first use instead of linked (see core/shared_library.hpp:
// linked, its ~30 dependencies cost the node daemon about 5 MiB of RSS).
// Only the functions petricore calls are looked up.
#pragma once

#include "core/shared_library.hpp"

#include <curl/curl.h>

#include <memory>

namespace petricore {

#define PETRICORE_CURL_FUNCTIONS(X)      \
  X(easy_init, curl_easy_init)           \
  X(easy_cleanup, curl_easy_cleanup)     \
  X(easy_setopt, curl_easy_setopt)       \
  X(easy_perform, curl_easy_perform)     \
  X(easy_getinfo, curl_easy_getinfo)     \
  X(easy_strerror, curl_easy_strerror)   \
  X(easy_escape, curl_easy_escape)       \
  X(free, curl_free)                     \
  X(slist_append, curl_slist_append)     \
  X(slist_free_all, curl_slist_free_all) \
  X(url, curl_url)                       \
  X(url_set, curl_url_set)               \
  X(url_cleanup, curl_url_cleanup)       \
  X(url_strerror, curl_url_strerror)

struct CurlLibrary {
  PETRICORE_CURL_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
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
