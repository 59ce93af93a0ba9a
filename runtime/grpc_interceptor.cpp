#include "runtime/grpc_interceptor.hpp"

#include <grpcpp/support/interceptor.h>
#include <grpcpp/support/status.h>

#include "runtime/grpc_call_stats.hpp"

namespace unisched::runtime {
namespace {

using grpc::experimental::InterceptionHookPoints;

/// The status code's name as gRPC spells it ("OK", "UNAUTHENTICATED", ...).
const char* code_name(grpc::StatusCode code) {
  static const char* const kNames[] = {"OK",
                                       "CANCELLED",
                                       "UNKNOWN",
                                       "INVALID_ARGUMENT",
                                       "DEADLINE_EXCEEDED",
                                       "NOT_FOUND",
                                       "ALREADY_EXISTS",
                                       "PERMISSION_DENIED",
                                       "RESOURCE_EXHAUSTED",
                                       "FAILED_PRECONDITION",
                                       "ABORTED",
                                       "OUT_OF_RANGE",
                                       "UNIMPLEMENTED",
                                       "INTERNAL",
                                       "UNAVAILABLE",
                                       "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  const auto index = static_cast<size_t>(code);
  return index < sizeof(kNames) / sizeof(kNames[0]) ? kNames[index] : "UNKNOWN";
}

class CallCounter final : public grpc::experimental::Interceptor {
 public:
  explicit CallCounter(std::string method) : method_(std::move(method)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_INITIAL_METADATA)) {
      grpc_call_stats().started(method_);
    }
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      grpc_call_stats().handled(method_, code_name(methods->GetSendStatus().error_code()));
    }
    methods->Proceed();
  }

 private:
  std::string method_;
};

class CallCounterFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new CallCounter(info->method());  // gRPC owns it
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> make_call_counter() {
  return std::make_unique<CallCounterFactory>();
}

}  // namespace unisched::runtime
