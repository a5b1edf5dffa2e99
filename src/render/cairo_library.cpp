#include "render/cairo_library.hpp"

#include "core/shared_library.hpp"

namespace petricore::render {
namespace {

CairoLibrary load() {
  SharedLibrary so("libcairo.so.2");
  CairoLibrary lib{};
  PETRICORE_CAIRO_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  return lib;
}

}  // namespace

const CairoLibrary& cairo_library() {
  // A function-local static: thread-safe, and a failed load throws again on
  // the next call.
  static const CairoLibrary lib = load();
  return lib;
}

}  // namespace petricore::render
