// Field errors in Kubernetes' style: "spec.accelerators[0].count: Invalid value: -1: must be ...".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/printable.hpp"  // quoted(), as error values show strings

namespace unisched::model {

/// What is wrong with a field; the names are those Kubernetes prints.
enum class FieldErrorType {
  Required,      ///< "Required value": a field that must be set is missing or null.
  Invalid,       ///< "Invalid value": right type, unacceptable value.
  TypeInvalid,   ///< "Invalid type": wrong YAML type (a string where a number belongs, ...).
  NotSupported,  ///< "Unsupported value": not one of the allowed values.
  Duplicate,     ///< "Duplicate value": a key or list entry given twice.
  UnknownField,  ///< "Unknown field": not in the schema; rejected, never ignored.
  Forbidden,     ///< "Forbidden": not allowed together with another field.
  Malformed,     ///< "Malformed YAML": the text is not YAML at all (no field to name).
};

struct FieldError {
  FieldErrorType type = FieldErrorType::Invalid;
  std::string path;    ///< e.g. "spec.accelerators[0].count"; empty for the document itself
  std::string value;   ///< the offending value as it should be shown (already quoted if a string)
  std::string detail;  ///< why, in words
  int line = 0;        ///< 1-based line in the source document, 0 when unknown

  /// "path: Type: value: detail", leaving out the parts that are empty.
  std::string to_string() const;
};

using FieldErrors = std::vector<FieldError>;

/// Builds child paths: FieldPath("spec").child("storage").index(1) is "spec.storage[1]".
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string path) : path_(std::move(path)) {}
  FieldPath child(std::string_view name) const {
    return FieldPath(path_.empty() ? std::string(name) : path_ + "." + std::string(name));
  }
  FieldPath index(size_t i) const { return FieldPath(path_ + "[" + std::to_string(i) + "]"); }
  FieldPath key(std::string_view k) const { return FieldPath(path_ + "[" + std::string(k) + "]"); }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

}  // namespace unisched::model
