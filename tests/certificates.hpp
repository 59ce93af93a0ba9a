// Certificates for tests that speak TLS, made with the openssl command in a scratch directory.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace unisched::testing {

/// Two certificate authorities ("ca", "other-ca") and a key and certificate for each name,
/// signed by the CA given for it and valid for 127.0.0.1, made with the openssl command in `dir`.
inline void make_certificates(const std::string& dir,
                              const std::vector<std::pair<std::string, std::string>>& signed_by) {
  const auto sh = [&](const std::string& command) {
    BOOST_TEST_REQUIRE(
        std::system(("cd " + dir + " && " + command + " >/dev/null 2>&1").c_str()) == 0, command);
  };
  for (const char* ca : {"ca", "other-ca"}) {
    sh(std::string("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=") + ca +
       " -keyout " + ca + ".key -out " + ca + ".pem");
  }
  // gRPC checks the server's address against the certificate's subjectAltName.
  std::ofstream(dir + "/san.ext") << "subjectAltName=IP:127.0.0.1,DNS:localhost\n";
  for (const auto& [name, ca] : signed_by) {
    sh("openssl req -newkey rsa:2048 -nodes -subj /CN=" + name + " -keyout " + name + ".key -out " +
       name + ".csr && openssl x509 -req -days 1 -in " + name + ".csr -CA " + ca + ".pem -CAkey " +
       ca + ".key -CAcreateserial -extfile san.ext -out " + name + ".pem");
  }
}

/// The --tls-* flags for `who`'s certificate from make_certificates, trusting `ca`.
inline std::vector<std::string> tls_flags(const std::string& dir, const std::string& who,
                                          const std::string& ca = "ca") {
  return {"--tls-cert", dir + "/" + who + ".pem", "--tls-key", dir + "/" + who + ".key",
          "--tls-ca",   dir + "/" + ca + ".pem"};
}

}  // namespace unisched::testing
