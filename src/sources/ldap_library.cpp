#include "sources/ldap_library.hpp"

#include "core/shared_library.hpp"

#include <stdexcept>
#include <string>

namespace petricore::sources {
namespace {

LdapLibrary load() {
  // liblber (ber_*) is not needed: values and strings are freed with
  // libldap's own ldap_value_free_len and ldap_memfree.
  SharedLibrary so({"libldap-2.5.so.0", "libldap.so.2"});
  LdapLibrary lib{};
  PETRICORE_LDAP_FUNCTIONS(PETRICORE_DLSYM_RESOLVE)
  // Any option call on a NULL handle runs the library's one-time global
  // initialisation (it reads ldap.conf); do it here, under the static's guard,
  // rather than in the first of several concurrent ldap_initialize calls.
  int version = 0;
  if (lib.get_option(nullptr, LDAP_OPT_PROTOCOL_VERSION, &version) != LDAP_OPT_SUCCESS) {
    throw std::runtime_error("cannot initialise " + so.soname());
  }
  return lib;
}

}  // namespace

const LdapLibrary& ldap_library() {
  // A function-local static: thread-safe, and a failed load throws again on
  // the next call.
  static const LdapLibrary lib = load();
  return lib;
}

// The deleters only run on objects the library made, so it is loaded by then.
void LdapUnbind::operator()(LDAP* ld) const {
  ldap_library().unbind_ext_s(ld, nullptr, nullptr);
}

void LdapMsgFree::operator()(LDAPMessage* message) const {
  ldap_library().msgfree(message);
}

void LdapValueFree::operator()(berval** values) const {
  ldap_library().value_free_len(values);
}

void LdapMemFree::operator()(char* text) const {
  ldap_library().memfree(text);
}

}  // namespace petricore::sources
