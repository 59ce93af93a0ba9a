#include "runtime/openssl_hooks.hpp"

#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

namespace {

template <class Function>
Function next_definition(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

using ReadFunction = int (*)(SSL*, void*, int);
using WriteFunction = int (*)(SSL*, const void*, int);
using HandshakeFunction = int (*)(SSL*);

ReadFunction openssl_read() {
  static const auto function = next_definition<ReadFunction>("SSL_read");
  return function;
}
WriteFunction openssl_write() {
  static const auto function = next_definition<WriteFunction>("SSL_write");
  return function;
}
HandshakeFunction openssl_connect() {
  static const auto function = next_definition<HandshakeFunction>("SSL_connect");
  return function;
}
HandshakeFunction openssl_accept() {
  static const auto function = next_definition<HandshakeFunction>("SSL_accept");
  return function;
}

}  // namespace

extern "C" {

int SSL_read(SSL* ssl, void* buffer, int size) {
  ERR_clear_error();
  return openssl_read()(ssl, buffer, size);
}

int SSL_write(SSL* ssl, const void* buffer, int size) {
  ERR_clear_error();
  return openssl_write()(ssl, buffer, size);
}

int SSL_connect(SSL* ssl) {
  ERR_clear_error();
  SSL_set_min_proto_version(ssl, TLS1_2_VERSION);
  return openssl_connect()(ssl);
}

int SSL_accept(SSL* ssl) {
  ERR_clear_error();
  SSL_set_min_proto_version(ssl, TLS1_2_VERSION);
  return openssl_accept()(ssl);
}

}  // extern "C"

namespace unisched::runtime {

bool openssl_hooks_active() {
  return openssl_read() != nullptr && openssl_write() != nullptr && openssl_connect() != nullptr &&
         openssl_accept() != nullptr;
}

}  // namespace unisched::runtime
