#include "messages/errors.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/message.hpp>

namespace unisched::messages {
namespace {

constexpr caf::atom_value kCategory = caf::atom("unisched");

}  // namespace

std::string to_string(Error code) {
  switch (code) {
    case Error::InvalidArgument:
      return "invalid_argument";
    case Error::Unauthenticated:
      return "unauthenticated";
    case Error::AlreadyRegistered:
      return "already_registered";
    case Error::NotFound:
      return "not_found";
    case Error::Unavailable:
      return "unavailable";
  }
  return "unknown";
}

caf::error make_error(Error code, std::string detail) {
  return caf::error(static_cast<uint8_t>(code), kCategory, caf::make_message(std::move(detail)));
}

std::optional<Error> error_code(const caf::error& error) {
  if (!error || error.category() != kCategory || error.code() < 1 ||
      error.code() > static_cast<uint8_t>(Error::Unavailable)) {
    return std::nullopt;
  }
  return static_cast<Error>(error.code());
}

std::string error_detail(const caf::error& error) {
  if (error_code(error) && error.context().match_elements<std::string>()) {
    return error.context().get_as<std::string>(0);
  }
  return to_string(error);
}

int cli_exit_code(const caf::error& error) {
  switch (error_code(error).value_or(Error::InvalidArgument)) {
    case Error::InvalidArgument:
      return 1;
    case Error::NotFound:
      return 3;
    case Error::Unauthenticated:
      return 4;
    case Error::AlreadyRegistered:
      return 5;
    case Error::Unavailable:
      return 6;
  }
  return 1;
}

void register_error_category(caf::actor_system_config& config) {
  config.add_error_category(
      kCategory, [](uint8_t code, caf::atom_value, const caf::message& context) -> std::string {
        std::string text = to_string(static_cast<Error>(code));
        if (context.match_elements<std::string>()) {
          text += ": " + context.get_as<std::string>(0);
        }
        return text;
      });
}

}  // namespace unisched::messages
