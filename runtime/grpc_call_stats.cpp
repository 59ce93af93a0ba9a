#include "runtime/grpc_call_stats.hpp"

namespace unisched::runtime {

void GrpcCallStats::started(const std::string& method) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.started[method];
}

void GrpcCallStats::handled(const std::string& method, const std::string& code) {
  const std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.handled[{method, code}];
}

GrpcCallStats::Counts GrpcCallStats::counts() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

GrpcCallStats& grpc_call_stats() {
  static GrpcCallStats stats;
  return stats;
}

}  // namespace unisched::runtime
