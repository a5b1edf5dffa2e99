// libldap (OpenLDAP 2.5), loaded on first use instead of linked (see
// core/shared_library.hpp: linked, it would bring GnuTLS, SASL and their
// dependencies into every petricore process, the node daemon included).
// Only the functions the directory calls are looked up, typed from <ldap.h>.
// Everything the library allocates is held by one of the RAII types below.
#pragma once

#include "core/shared_library.hpp"

#include <ldap.h>

#include <memory>

namespace petricore::sources {

#define PETRICORE_LDAP_FUNCTIONS(X)      \
  X(initialize, ldap_initialize)         \
  X(set_option, ldap_set_option)         \
  X(get_option, ldap_get_option)         \
  X(sasl_bind_s, ldap_sasl_bind_s)       \
  X(search_ext_s, ldap_search_ext_s)     \
  X(count_entries, ldap_count_entries)   \
  X(first_entry, ldap_first_entry)       \
  X(next_entry, ldap_next_entry)         \
  X(get_values_len, ldap_get_values_len) \
  X(value_free_len, ldap_value_free_len) \
  X(msgfree, ldap_msgfree)               \
  X(unbind_ext_s, ldap_unbind_ext_s)     \
  X(err2string, ldap_err2string)         \
  X(memfree, ldap_memfree)

struct LdapLibrary {
  PETRICORE_LDAP_FUNCTIONS(PETRICORE_DLSYM_MEMBER)
};

// Loads libldap-2.5.so.0 once per process (thread-safe) and runs the
// library's global initialisation there, so that later calls from several
// threads never race on it. Throws std::runtime_error with a one-line reason
// when the library or one of its functions cannot be loaded; a later call
// tries again.
const LdapLibrary& ldap_library();

// An LDAP session: ldap_unbind_ext_s on destruction (which also closes the
// connection).
struct LdapUnbind {
  void operator()(LDAP* ld) const;
};
using LdapHandle = std::unique_ptr<LDAP, LdapUnbind>;

// A search result chain: ldap_msgfree on destruction.
struct LdapMsgFree {
  void operator()(LDAPMessage* message) const;
};
using LdapMessagePtr = std::unique_ptr<LDAPMessage, LdapMsgFree>;

// The NULL-terminated array of ldap_get_values_len: ldap_value_free_len.
struct LdapValueFree {
  void operator()(berval** values) const;
};
using LdapValues = std::unique_ptr<berval*, LdapValueFree>;

// A string the library allocated (e.g. LDAP_OPT_DIAGNOSTIC_MESSAGE): ldap_memfree.
struct LdapMemFree {
  void operator()(char* text) const;
};
using LdapString = std::unique_ptr<char, LdapMemFree>;

}  // namespace petricore::sources
