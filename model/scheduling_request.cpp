#include "model/scheduling_request.hpp"

#include <limits>
#include <set>

#include "model/krm_validation.hpp"
#include "model/names.hpp"

namespace unisched::model {
namespace {

constexpr int64_t kMaxReplicas = 100'000;
constexpr int64_t kMaxDevicesPerReplica = 1'024;
constexpr int64_t kWholeDevice = 1'000;  // milli

void validate_selector(const ClusterSelector& selector, const FieldPath& path, Validation& check) {
  for (size_t i = 0; i < selector.regions.size(); ++i) {
    check.name(selector.regions[i], path.child("regions").index(i), check_label_value, true);
  }
  for (size_t i = 0; i < selector.zones.size(); ++i) {
    check.name(selector.zones[i], path.child("zones").index(i), check_label_value, true);
  }
  for (size_t i = 0; i < selector.clusters.size(); ++i) {
    check.name(selector.clusters[i], path.child("clusters").index(i), check_dns1123_label, true);
  }
}

/// A value both required by affinity and excluded by anti-affinity can never be satisfied.
void forbid_overlap(const std::vector<std::string>& required,
                    const std::vector<std::string>& excluded, const FieldPath& excluded_path,
                    const std::string& required_path, Validation& check) {
  const std::set<std::string> wanted(required.begin(), required.end());
  for (size_t i = 0; i < excluded.size(); ++i) {
    if (wanted.count(excluded[i]) != 0) {
      check.add(FieldErrorType::Forbidden, excluded_path.index(i), quoted(excluded[i]),
                "also required by " + required_path);
    }
  }
}

void validate_resources(const ResourceRequest& resources, const FieldPath& path,
                        Validation& check) {
  check.cpu(resources.cpu, path.child("cpu"), false);
  check.bytes(resources.memory, path.child("memory"), false);
  std::set<std::pair<AcceleratorType, std::string>> seen;
  for (size_t i = 0; i < resources.accelerators.size(); ++i) {
    const AcceleratorRequest& accelerator = resources.accelerators[i];
    const FieldPath item = path.child("accelerators").index(i);
    check.name(accelerator.model, item.child("model"), check_label_value, false);
    for (size_t m = 0; m < accelerator.models.size(); ++m) {
      check.name(accelerator.models[m], item.child("models").index(m), check_label_value, true);
    }
    if (!accelerator.model.empty() && !accelerator.models.empty()) {
      check.add(FieldErrorType::Forbidden, item.child("models"), {},
                "give model or models, not both");
    }
    check.integer_range(accelerator.count, item.child("count"), 1, kMaxDevicesPerReplica);
    if (accelerator.share) {
      const auto milli = accelerator.share->milli_value();
      // milli_value() rounds up; a share must be exact to the milli.
      const bool whole_milli = accelerator.share->nanos() % 1'000'000 == 0;
      if (!milli || *milli <= 0 || *milli >= kWholeDevice || !whole_milli) {
        check.add(FieldErrorType::Invalid, item.child("share"), accelerator.share->to_string(),
                  "must be above 0 and below 1 (a part of one device, to the milli)");
      } else if (accelerator.count != 1) {
        check.add(FieldErrorType::Forbidden, item.child("count"), std::to_string(accelerator.count),
                  "a share is of one device: count must be 1");
      } else if (resources.accelerators.size() > 1) {
        check.add(FieldErrorType::Forbidden, item.child("share"), accelerator.share->to_string(),
                  "a share must be the request's only accelerator");
      }
    }
    if (accelerator.min_memory_per_device) {
      check.bytes(*accelerator.min_memory_per_device, item.child("minMemoryPerGPU"), true);
    }
    std::string models;
    for (const std::string& model : accepted_models(accelerator)) {
      models += (models.empty() ? "" : "|") + model;
    }
    if (!seen.insert({accelerator.type, models}).second) {
      check.add(FieldErrorType::Duplicate, item.child("model"), quoted(accelerator.model),
                "each type and model is requested once");
    }
  }
  std::set<int64_t> ports;
  for (size_t i = 0; i < resources.host_ports.size(); ++i) {
    const FieldPath item = path.child("hostPorts").index(i);
    check.integer_range(resources.host_ports[i], item, 1, 65'535);
    if (!ports.insert(resources.host_ports[i]).second) {
      check.add(FieldErrorType::Duplicate, item, std::to_string(resources.host_ports[i]), {});
    }
  }
}

void validate_placement(const PlacementSpec& placement, const FieldPath& path, Validation& check) {
  validate_selector(placement.affinity, path.child("affinity"), check);
  validate_selector(placement.anti_affinity, path.child("antiAffinity"), check);
  const FieldPath anti = path.child("antiAffinity");
  const std::string affinity = path.child("affinity").str();
  forbid_overlap(placement.affinity.regions, placement.anti_affinity.regions, anti.child("regions"),
                 affinity + ".regions", check);
  forbid_overlap(placement.affinity.zones, placement.anti_affinity.zones, anti.child("zones"),
                 affinity + ".zones", check);
  forbid_overlap(placement.affinity.clusters, placement.anti_affinity.clusters,
                 anti.child("clusters"), affinity + ".clusters", check);
  if (placement.storage) {
    const FieldPath storage = path.child("storage");
    check.name(placement.storage->storage_class, storage.child("class"), check_dns1123_subdomain,
               true);
    if (placement.storage->capacity) {
      check.bytes(*placement.storage->capacity, storage.child("capacity"), false);
    }
  }
}

void validate_distribution(const DistributionSpec& distribution, const FieldPath& path,
                           Validation& check) {
  if (distribution.mode == DistributionMode::Together && !distribution.weights.empty()) {
    check.add(
        FieldErrorType::Forbidden, path.child("weights"), {},
        "weights apply only to mode Spread; mode Together keeps every replica in one cluster");
  }
  std::set<std::string> clusters;
  for (size_t i = 0; i < distribution.weights.size(); ++i) {
    const FieldPath item = path.child("weights").index(i);
    check.name(distribution.weights[i].cluster, item.child("cluster"), check_dns1123_label, true);
    check.integer_range(distribution.weights[i].weight, item.child("weight"), 1, 1'000'000);
    if (!clusters.insert(distribution.weights[i].cluster).second) {
      check.add(FieldErrorType::Duplicate, item.child("cluster"),
                quoted(distribution.weights[i].cluster), {});
    }
  }
}

}  // namespace

std::vector<std::string> accepted_models(const AcceleratorRequest& accelerator) {
  if (!accelerator.model.empty()) {
    return {accelerator.model};
  }
  return accelerator.models;
}

int32_t milli_per_device(const AcceleratorRequest& accelerator) {
  const auto milli = accelerator.share ? accelerator.share->milli_value() : std::nullopt;
  return milli && *milli > 0 && *milli < kWholeDevice ? static_cast<int32_t>(*milli)
                                                      : static_cast<int32_t>(kWholeDevice);
}

FieldErrors validate_and_default(SchedulingRequest& request) {
  FieldErrors errors;
  Validation check(errors);
  check.metadata(request.metadata, FieldPath("metadata"));
  const FieldPath path("spec");
  SchedulingRequestSpec& spec = request.spec;
  check.integer_range(spec.replicas, path.child("replicas"), 1, kMaxReplicas);
  check.integer_range(spec.priority, path.child("priority"), std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int32_t>::max());
  check.name(spec.queue, path.child("queue"), check_dns1123_label, false);
  validate_resources(spec.resources, path.child("resources"), check);
  validate_placement(spec.placement, path.child("placement"), check);
  validate_distribution(spec.distribution, path.child("distribution"), check);
  return errors;
}

}  // namespace unisched::model
