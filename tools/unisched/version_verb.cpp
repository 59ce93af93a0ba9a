// unisched version: this build and the libraries it was built against.
#include <google/protobuf/stubs/common.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/version.h>
#include <yaml-cpp/yaml.h>
#include <caf/config.hpp>

#include <cstdio>

#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

int run_version(const ParsedArgs&) {
  std::printf("unisched %s\n", UNISCHED_VERSION);
  std::printf("CAF %d.%d.%d\n", CAF_MAJOR_VERSION, CAF_MINOR_VERSION, CAF_PATCH_VERSION);
  std::printf("protobuf %s\n",
              google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION).c_str());
  std::printf("gRPC %s\n", grpc::Version().c_str());
  std::printf("spdlog %d.%d.%d\n", SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH);
  return 0;
}

}  // namespace

Verb version_verb() {
  return Verb{
      "version",  "Print the versions of unisched and its libraries", "unisched version", {}, {},
      run_version};
}

}  // namespace unisched::cli
