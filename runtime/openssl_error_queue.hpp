// Keeps caf_openssl 0.17's TLS connections from being dropped for no reason.
//
// OpenSSL requires the calling thread's error queue to be empty before each SSL_read,
// SSL_write, SSL_connect and SSL_accept, or SSL_get_error() misreads a harmless "would block"
// as fatal. caf_openssl 0.17 never clears it, and one peer that closes abruptly (every
// short-lived client, such as `unisched get`) leaves an error on the multiplexer thread: the
// next would-block on any other connection then closed it. Agents and shards lost their links
// to the hub within seconds of client traffic.
//
// This file's object defines those four functions in the executable; the dynamic linker binds
// caf_openssl's calls to them, and each clears the queue and calls OpenSSL's own. Linking it is
// enough; install_openssl_error_queue_guard() only makes sure the object is linked.
#pragma once

namespace unisched::runtime {

/// True when the guard is in place (its functions were found in OpenSSL).
bool install_openssl_error_queue_guard();

}  // namespace unisched::runtime
