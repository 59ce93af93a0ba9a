// Counts of the gRPC calls a server took and how each ended (its status code), by method, for
// the metrics. Plain C++: the server's interceptor (runtime/grpc_interceptor.hpp) records.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace unisched::runtime {

class GrpcCallStats {
 public:
  struct Counts {
    std::map<std::string, uint64_t> started;  ///< by full method name, "/package.Service/Method"
    std::map<std::pair<std::string, std::string>, uint64_t> handled;  ///< by method, status code
  };

  void started(const std::string& method);
  void handled(const std::string& method, const std::string& code);
  Counts counts() const;

 private:
  mutable std::mutex mutex_;
  Counts counts_;
};

/// This process's calls.
GrpcCallStats& grpc_call_stats();

}  // namespace unisched::runtime
