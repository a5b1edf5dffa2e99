#include "core/shared_library.hpp"

#include <dlfcn.h>

namespace petricore {

SharedLibrary::SharedLibrary(const char* soname) : SharedLibrary({soname}) {}

SharedLibrary::SharedLibrary(std::initializer_list<const char*> sonames)
    : SharedLibrary(std::vector<std::string>(sonames.begin(), sonames.end())) {}

SharedLibrary::SharedLibrary(const std::vector<std::string>& sonames) {
  std::string why;
  if (!open_first(sonames, why)) throw std::runtime_error(why);
}

std::optional<SharedLibrary> SharedLibrary::try_open(const std::vector<std::string>& sonames, std::string& why) {
  SharedLibrary library;
  if (!library.open_first(sonames, why)) return std::nullopt;
  return library;
}

bool SharedLibrary::open_first(const std::vector<std::string>& sonames, std::string& why) {
  std::string failures;
  for (const std::string& name : sonames) {
    handle_ = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) {
      soname_ = name;
      return true;
    }
    failures += (failures.empty() ? "" : "; ") + std::string(::dlerror());
  }
  std::string names;
  for (const std::string& name : sonames) names += (names.empty() ? "" : " or ") + name;
  why = "cannot load " + names + ": " + failures;
  return false;
}

void* SharedLibrary::find(const char* name) const noexcept {
  return ::dlsym(handle_, name);
}

void* SharedLibrary::symbol(const char* name) const {
  void* found = find(name);
  if (found == nullptr) throw std::runtime_error("cannot load " + soname_ + ": no symbol " + name);
  return found;
}

}  // namespace petricore
