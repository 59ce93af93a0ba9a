// The gRPC server interceptor that counts every call as it starts and as it ends, with its
// status code, into grpc_call_stats() (so every service of the server is counted alike).
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include <memory>

namespace unisched::runtime {

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> make_call_counter();

}  // namespace unisched::runtime
