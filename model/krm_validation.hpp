// Checks shared by every kind's validation. Each appends to `errors` and returns nothing, so a
// validator reports every problem of a document at once.
#pragma once

#include <map>
#include <string>

#include "model/field_error.hpp"
#include "model/krm_common.hpp"

namespace unisched::model {

class Validation {
 public:
  explicit Validation(FieldErrors& errors) : errors_(errors) {}

  void add(FieldErrorType type, const FieldPath& path, std::string value, std::string detail);
  void required(const FieldPath& path, std::string detail = {});
  void invalid(const FieldPath& path, std::string value, std::string detail);

  void metadata(const ObjectMeta& meta, const FieldPath& path);
  void labels(const std::map<std::string, std::string>& labels, const FieldPath& path);

  /// `check` is one of the names.hpp checks; an empty value is reported as Required when
  /// `needed`, and accepted otherwise.
  void name(const std::string& value, const FieldPath& path, std::string (*check)(std::string_view),
            bool needed);

  /// cpu: >= 0 (or > 0 when `positive`) and whole milli-cores within int64.
  void cpu(const Quantity& cpu, const FieldPath& path, bool positive);
  /// memory, capacities: >= 0 (or > 0) and whole bytes within int64.
  void bytes(const Quantity& amount, const FieldPath& path, bool positive);
  void integer_range(int64_t value, const FieldPath& path, int64_t min, int64_t max);

  /// One accelerator group of a profile or node shape.
  void accelerator(const AcceleratorSpec& accelerator, const FieldPath& path);

  size_t error_count() const { return errors_.size(); }

 private:
  FieldErrors& errors_;
};

}  // namespace unisched::model
