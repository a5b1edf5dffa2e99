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
  so.resolve("ldap_initialize", lib.initialize);
  so.resolve("ldap_set_option", lib.set_option);
  so.resolve("ldap_get_option", lib.get_option);
  so.resolve("ldap_sasl_bind_s", lib.sasl_bind_s);
  so.resolve("ldap_search_ext_s", lib.search_ext_s);
  so.resolve("ldap_count_entries", lib.count_entries);
  so.resolve("ldap_first_entry", lib.first_entry);
  so.resolve("ldap_next_entry", lib.next_entry);
  so.resolve("ldap_get_values_len", lib.get_values_len);
  so.resolve("ldap_value_free_len", lib.value_free_len);
  so.resolve("ldap_msgfree", lib.msgfree);
  so.resolve("ldap_unbind_ext_s", lib.unbind_ext_s);
  so.resolve("ldap_err2string", lib.err2string);
  so.resolve("ldap_memfree", lib.memfree);
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
