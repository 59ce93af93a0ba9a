#include "model/scheduling_quota.hpp"

#include "model/accelerator_names.hpp"
#include "model/krm_validation.hpp"
#include "model/names.hpp"

namespace unisched::model {
namespace {

/// cpu, memory, an extended resource name with its domain ("nvidia.com/gpu"), or a kind of
/// device (GPU, TPU, NPU, FPGA: every device of the kind, whatever its vendor or naming).
std::string check_resource_name(const std::string& name) {
  if (name == "cpu" || name == "memory") {
    return {};
  }
  const auto kind = parse_accelerator_type(name);
  const bool short_kind = kind && kind->resource.empty() && kind->type != AcceleratorType::Other;
  const bool extended = kind && !kind->resource.empty() && name.find('/') != std::string::npos;
  if (!short_kind && !extended) {
    return "must be cpu, memory, a kind of device (GPU, TPU, NPU, FPGA) or an extended "
           "resource name such as nvidia.com/gpu";
  }
  return {};
}

void resources(Validation& check, const std::map<std::string, Quantity>& amounts,
               const FieldPath& path) {
  for (const auto& [name, amount] : amounts) {
    const FieldPath at = path.key(name);
    if (const std::string why = check_resource_name(name); !why.empty()) {
      check.add(FieldErrorType::Invalid, at, quoted(name), why);
    } else if (name == "cpu") {
      check.cpu(amount, at, false);
    } else {
      check.bytes(amount, at, false);  // whole units (bytes for memory), never negative
    }
  }
}

void limits(Validation& check, const SchedulingQuota& quota,
            const std::map<std::string, Quantity>& limit, const FieldPath& path, bool lending) {
  if (limit.empty()) {
    return;
  }
  if (quota.spec.cohort.empty()) {
    check.add(FieldErrorType::Forbidden, path, {}, "only a member of a cohort borrows or lends");
    return;
  }
  resources(check, limit, path);
  for (const auto& [name, amount] : limit) {
    const auto hard = quota.spec.hard.find(name);
    if (hard == quota.spec.hard.end()) {
      check.add(FieldErrorType::Invalid, path.key(name), quoted(name),
                "not a resource of spec.hard");
    } else if (lending && hard->second < amount) {
      check.add(FieldErrorType::Invalid, path.key(name), quoted(amount.to_string()),
                "more than spec.hard (" + hard->second.to_string() + ")");
    }
  }
}

void caps(Validation& check, const std::vector<QuotaCap>& caps, const FieldPath& path) {
  for (size_t i = 0; i < caps.size(); ++i) {
    const QuotaCap& cap = caps[i];
    const FieldPath at = path.index(i);
    if (cap.cluster.empty() && cap.region.empty() && cap.zone.empty() && cap.model.empty()) {
      check.required(at, "one of cluster, region, zone or model: what the cap covers");
    }
    check.name(cap.cluster, at.child("cluster"), check_cluster_id, false);
    check.name(cap.region, at.child("region"), check_label_value, false);
    check.name(cap.zone, at.child("zone"), check_label_value, false);
    check.name(cap.model, at.child("model"), check_label_value, false);
    if (cap.hard.empty()) {
      check.required(at.child("hard"), "at least one resource");
    }
    resources(check, cap.hard, at.child("hard"));
  }
}

}  // namespace

FieldErrors validate_and_default(SchedulingQuota& quota) {
  FieldErrors errors;
  Validation check(errors);
  check.metadata(quota.metadata, FieldPath("metadata"));
  const FieldPath spec("spec");
  check.name(quota.spec.queue, spec.child("queue"), check_dns1123_label, true);
  check.name(quota.spec.cohort, spec.child("cohort"), check_dns1123_label, false);
  check.integer_range(quota.spec.weight, spec.child("weight"), 1, 1000);
  if (quota.spec.hard.empty()) {
    check.required(spec.child("hard"), "at least one resource");
  }
  resources(check, quota.spec.hard, spec.child("hard"));
  limits(check, quota, quota.spec.borrowing_limit, spec.child("borrowingLimit"), false);
  limits(check, quota, quota.spec.lending_limit, spec.child("lendingLimit"), true);
  caps(check, quota.spec.caps, spec.child("caps"));
  return errors;
}

std::string quota_amount_text(const std::string& resource, int64_t amount) {
  if (resource == "memory") {
    return Quantity::from_units(amount, QuantityFormat::BinarySI).to_string();
  }
  return Quantity::from_milli(amount).to_string();
}

}  // namespace unisched::model
