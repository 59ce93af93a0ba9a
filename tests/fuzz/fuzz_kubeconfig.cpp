// The kubeconfig reader (adapters/kubernetes/kubeconfig), as kubectl users hand it a file. The
// input is written to a file of its own and read; whatever it holds, the reader answers with
// access or with an error naming that file, and never throws.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "adapters/kubernetes/kubeconfig.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace kubernetes = unisched::adapters::kubernetes;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path =
      (std::filesystem::temp_directory_path() /
       ("unisched-fuzz-kubeconfig-" + std::to_string(getpid()) + ".yaml"))
          .string();
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  const auto access = kubernetes::read_kubeconfig(path);
  if (!access.ok()) {
    const std::string message(access.status().message());
    unisched::fuzz::check(message.find(path) != std::string::npos, "an error names the file",
                          message);
  }
  const auto id =
      kubernetes::cluster_id_from_context(std::string(unisched::fuzz::as_text(data, size)));
  if (id.ok()) {
    unisched::fuzz::check(!id->empty() && id->size() <= 63, "a cluster id is a DNS-1123 label",
                          *id);
  }
  return 0;
}
