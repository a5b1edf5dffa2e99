#include "core/curl_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace petricore {
namespace {

template <typename Function>
void resolve(void* handle, const char* name, Function& out) {
  void* symbol = ::dlsym(handle, name);
  if (symbol == nullptr) throw std::runtime_error(std::string{"cannot load libcurl: no symbol "} + name);
  out = reinterpret_cast<Function>(symbol);
}

CurlLibrary load() {
  // Never dlclose()d: the library lives as long as the process.
  void* handle = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error(std::string{"cannot load libcurl: "} + ::dlerror());
  CurlLibrary lib{};
  resolve(handle, "curl_easy_init", lib.easy_init);
  resolve(handle, "curl_easy_cleanup", lib.easy_cleanup);
  resolve(handle, "curl_easy_setopt", lib.easy_setopt);
  resolve(handle, "curl_easy_perform", lib.easy_perform);
  resolve(handle, "curl_easy_getinfo", lib.easy_getinfo);
  resolve(handle, "curl_easy_strerror", lib.easy_strerror);
  resolve(handle, "curl_slist_append", lib.slist_append);
  resolve(handle, "curl_slist_free_all", lib.slist_free_all);
  resolve(handle, "curl_url", lib.url);
  resolve(handle, "curl_url_set", lib.url_set);
  resolve(handle, "curl_url_cleanup", lib.url_cleanup);
  resolve(handle, "curl_url_strerror", lib.url_strerror);
  decltype(&::curl_global_init) global_init = nullptr;
  resolve(handle, "curl_global_init", global_init);
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
