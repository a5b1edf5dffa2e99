// A shared library opened with dlopen() on first use, for the heavy
// dependencies only some subcommands need (libcurl, libldap, libmariadb).
//
// Linking them would load their dependencies (OpenSSL, GnuTLS with p11-kit,
// Kerberos, SASL, ...) into every petricore process, and those libraries'
// constructors cost the node daemon megabytes of resident memory it never
// uses. As systemd does for its optional libraries, each adapter opens its
// library when first needed and looks up only the functions it calls, typed
// from the library's own header (decltype(&function)), so a signature
// mismatch is a compile error.
#pragma once

#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace petricore {

class SharedLibrary {
 public:
  // dlopen(soname). Throws std::runtime_error "cannot load <soname>: <why>".
  // The handle is never closed: the library lives as long as the process.
  explicit SharedLibrary(const char* soname);
  // The first of `sonames` that loads (a library whose soname differs
  // between distributions: libldap-2.5.so.0 on Debian 12, libldap.so.2 with
  // OpenLDAP 2.6 on EL9 and Debian 13). Throws naming every one tried.
  explicit SharedLibrary(std::initializer_list<const char*> sonames);
  // The same, from a list chosen at run time (a configured path, or a
  // vendor's sonames newest first).
  explicit SharedLibrary(const std::vector<std::string>& sonames);
  // The same without an exception, for a library whose absence is normal
  // (the GPU libraries on a node without GPUs): empty, with `why` set, when
  // none loads. An exception's unwinding would page in for good some 300 kB
  // of the binary's and the C++ runtime's unwind tables and code.
  static std::optional<SharedLibrary> try_open(const std::vector<std::string>& sonames, std::string& why);

  // The soname that was loaded.
  const std::string& soname() const { return soname_; }

  // Looks up `name` into `out`. Throws std::runtime_error when missing.
  template <typename Function>
  void resolve(const char* name, Function& out) const {
    out = reinterpret_cast<Function>(symbol(name));
  }
  // The same, returned: for PETRICORE_DLSYM below.
  template <typename Function>
  Function resolved(const char* name) const {
    return reinterpret_cast<Function>(symbol(name));
  }
  // Looks up a function only newer versions of the library have: `out` is
  // null, and false returned, when it is missing.
  template <typename Function>
  bool resolve_optional(const char* name, Function& out) const noexcept {
    out = reinterpret_cast<Function>(find(name));
    return out != nullptr;
  }

 private:
  void* symbol(const char* name) const;
  void* find(const char* name) const noexcept;  // null when missing
  SharedLibrary() = default;
  // Opens the first of `sonames` that loads; false, with `why`, when none does.
  bool open_first(const std::vector<std::string>& sonames, std::string& why);
  std::string soname_;
  void* handle_ = nullptr;
};

}  // namespace petricore

// systemd's DLSYM_ARG, as an X-macro, so that each function is named once: an
// adapter lists its functions as X(member, symbol) entries in one list macro
// and expands that list twice, with PETRICORE_DLSYM_MEMBER inside its struct
// (a member typed from the library's own header) and with
// PETRICORE_DLSYM_RESOLVE in its loader (the look-up by the symbol's name;
// it expects the SharedLibrary as `so` and the struct as `lib`).
#define PETRICORE_DLSYM_MEMBER(member, symbol) decltype(&::symbol) member;
#define PETRICORE_DLSYM_RESOLVE(member, symbol) so.resolve(#symbol, lib.member);
// One function needed only while loading (a library's global init), typed
// and looked up with one mention: `auto init = PETRICORE_DLSYM(so, symbol);`.
#define PETRICORE_DLSYM(library, symbol) (library).resolved<decltype(&::symbol)>(#symbol)
