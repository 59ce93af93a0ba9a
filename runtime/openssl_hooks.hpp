// What caf_openssl 0.17 leaves out of its TLS connections, put in by interposing OpenSSL calls.
//
// 1. Connections dropped for no reason.
// OpenSSL requires the calling thread's error queue to be empty before each SSL_read,
// SSL_write, SSL_connect and SSL_accept, or SSL_get_error() misreads a harmless "would block"
// as fatal. caf_openssl 0.17 never clears it, and one peer that closes abruptly (every
// short-lived client, such as `unisched get`) leaves an error on the multiplexer thread: the
// next would-block on any other connection then closed it. Agents and shards lost their links
// to the hub within seconds of client traffic.
//
// 2. Old protocols. caf_openssl takes OpenSSL's TLS_method() with whatever floor the machine's
// OpenSSL configuration sets (a permissive OPENSSL_CONF would let TLS 1.0 in). Every connection
// is held to TLS 1.2 or newer before its handshake, whatever the configuration.
//
// This file's object defines those four functions in the executable; the dynamic linker binds
// caf_openssl's calls to them, and each clears the queue (and, for a handshake, sets the floor)
// and calls OpenSSL's own. Linking it is enough; openssl_hooks_active() only makes sure the
// object is linked.
#pragma once

namespace unisched::runtime {

/// True when the hooks are in place (their functions were found in OpenSSL).
bool openssl_hooks_active();

}  // namespace unisched::runtime
