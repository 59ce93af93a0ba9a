#include "model/field_error.hpp"

namespace unisched::model {
namespace {

const char* type_name(FieldErrorType type) {
  switch (type) {
    case FieldErrorType::Required:
      return "Required value";
    case FieldErrorType::Invalid:
      return "Invalid value";
    case FieldErrorType::TypeInvalid:
      return "Invalid type";
    case FieldErrorType::NotSupported:
      return "Unsupported value";
    case FieldErrorType::Duplicate:
      return "Duplicate value";
    case FieldErrorType::UnknownField:
      return "Unknown field";
    case FieldErrorType::Forbidden:
      return "Forbidden";
    case FieldErrorType::Malformed:
      return "Malformed YAML";
  }
  return "Invalid value";
}

}  // namespace

std::string FieldError::to_string() const {
  std::string text = path.empty() ? std::string() : path + ": ";
  text += type_name(type);
  if (!value.empty()) {
    text += ": " + value;
  }
  if (!detail.empty()) {
    text += ": " + detail;
  }
  return text;
}

}  // namespace unisched::model
