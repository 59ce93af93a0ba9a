#include "runtime/grpc_calls.hpp"

#include "messages/errors.hpp"

namespace unisched::runtime {

using grpc::Status;
using grpc::StatusCode;

std::string call_metadata(const grpc::ServerContext* context, const std::string& key) {
  const auto& client = context->client_metadata();
  const auto found = client.find(key);
  return found == client.end() ? std::string()
                               : std::string(found->second.data(), found->second.size());
}

std::chrono::milliseconds time_left(const grpc::ServerContext* context) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      context->deadline() - std::chrono::system_clock::now());
  return std::max(std::chrono::milliseconds(1),
                  std::min<std::chrono::milliseconds>(left, kCentreTimeout));
}

Status status_of(const caf::error& error, const std::string& context) {
  const std::string text = context + messages::error_detail(error);
  switch (messages::error_code(error).value_or(messages::Error::Unavailable)) {
    case messages::Error::InvalidArgument:
      return Status(StatusCode::INVALID_ARGUMENT, text);
    case messages::Error::Unauthenticated:
      return Status(StatusCode::UNAUTHENTICATED, text);
    case messages::Error::AlreadyRegistered:
      return Status(StatusCode::ALREADY_EXISTS, text);
    case messages::Error::NotFound:
      return Status(StatusCode::NOT_FOUND, text);
    case messages::Error::Unavailable:
      return Status(StatusCode::UNAVAILABLE, text);
  }
  return Status(StatusCode::UNAVAILABLE, text);
}

}  // namespace unisched::runtime
