#include "model/krm_validation.hpp"

#include "model/names.hpp"

namespace unisched::model {

void Validation::add(FieldErrorType type, const FieldPath& path, std::string value,
                     std::string detail) {
  errors_.push_back(FieldError{type, path.str(), std::move(value), std::move(detail), 0});
}

void Validation::required(const FieldPath& path, std::string detail) {
  add(FieldErrorType::Required, path, {}, std::move(detail));
}

void Validation::invalid(const FieldPath& path, std::string value, std::string detail) {
  add(FieldErrorType::Invalid, path, std::move(value), std::move(detail));
}

void Validation::metadata(const ObjectMeta& meta, const FieldPath& path) {
  name(meta.name, path.child("name"), check_dns1123_subdomain, true);
  labels(meta.labels, path.child("labels"));
  for (const auto& [key, value] : meta.annotations) {
    if (auto reason = check_label_key(key); !reason.empty()) {
      invalid(path.child("annotations"), quoted(key), reason);
    }
  }
}

void Validation::labels(const std::map<std::string, std::string>& labels, const FieldPath& path) {
  for (const auto& [key, value] : labels) {
    if (auto reason = check_label_key(key); !reason.empty()) {
      invalid(path, quoted(key), reason);
    }
    if (auto reason = check_label_value(value); !reason.empty()) {
      invalid(path.key(key), quoted(value), reason);
    }
  }
}

void Validation::name(const std::string& value, const FieldPath& path,
                      std::string (*check)(std::string_view), bool needed) {
  if (value.empty()) {
    if (needed) {
      required(path);
    }
    return;
  }
  if (auto reason = check(value); !reason.empty()) {
    invalid(path, quoted(value), reason);
  }
}

namespace {

/// What the user wrote, when Kubernetes' cap changed it; else the canonical form.
std::string written(const Quantity& quantity) {
  return quantity.capped_from().empty() ? quantity.to_string() : quantity.capped_from();
}

}  // namespace

void Validation::cpu(const Quantity& cpu, const FieldPath& path, bool positive) {
  if (cpu.sign() < 0 || (positive && cpu.is_zero())) {
    invalid(path, quoted(cpu.to_string()),
            positive ? "must be greater than 0" : "must be greater than or equal to 0");
  } else if (!cpu.milli_value() || !cpu.capped_from().empty()) {
    invalid(path, quoted(written(cpu)),
            "too large: must fit in a signed 64-bit count of millicores");
  }
}

void Validation::bytes(const Quantity& amount, const FieldPath& path, bool positive) {
  if (amount.sign() < 0 || (positive && amount.is_zero())) {
    invalid(path, quoted(amount.to_string()),
            positive ? "must be greater than 0" : "must be greater than or equal to 0");
  } else if (!amount.value() || !amount.capped_from().empty()) {
    invalid(path, quoted(written(amount)), "too large: must fit in a signed 64-bit count of bytes");
  }
}

void Validation::integer_range(int64_t value, const FieldPath& path, int64_t min, int64_t max) {
  if (value < min) {
    invalid(path, std::to_string(value), "must be greater than or equal to " + std::to_string(min));
  } else if (value > max) {
    invalid(path, std::to_string(value), "must be less than or equal to " + std::to_string(max));
  }
}

void Validation::accelerator(const AcceleratorSpec& accelerator, const FieldPath& path) {
  name(accelerator.model, path.child("model"), check_label_value, true);
  integer_range(accelerator.count, path.child("count"), 1, 1'000'000);
  bytes(accelerator.memory_per_device, path.child("memoryPerGPU"), true);
}

}  // namespace unisched::model
