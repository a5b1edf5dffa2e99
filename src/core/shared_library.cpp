#include "core/shared_library.hpp"

#include <dlfcn.h>

namespace petricore {

SharedLibrary::SharedLibrary(const char* soname) : SharedLibrary({soname}) {}

SharedLibrary::SharedLibrary(std::initializer_list<const char*> sonames) {
  std::string failures;
  for (const char* name : sonames) {
    handle_ = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) {
      soname_ = name;
      return;
    }
    failures += (failures.empty() ? "" : "; ") + std::string(::dlerror());
  }
  std::string names;
  for (const char* name : sonames) names += (names.empty() ? "" : " or ") + std::string(name);
  throw std::runtime_error("cannot load " + names + ": " + failures);
}

void* SharedLibrary::symbol(const char* name) const {
  void* found = ::dlsym(handle_, name);
  if (found == nullptr) throw std::runtime_error("cannot load " + soname_ + ": no symbol " + name);
  return found;
}

}  // namespace petricore
