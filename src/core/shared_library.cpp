#include "core/shared_library.hpp"

#include <dlfcn.h>

namespace petricore {

SharedLibrary::SharedLibrary(const char* soname) : soname_(soname) {
  handle_ = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) throw std::runtime_error("cannot load " + soname_ + ": " + ::dlerror());
}

void* SharedLibrary::symbol(const char* name) const {
  void* found = ::dlsym(handle_, name);
  if (found == nullptr) throw std::runtime_error("cannot load " + soname_ + ": no symbol " + name);
  return found;
}

}  // namespace petricore
