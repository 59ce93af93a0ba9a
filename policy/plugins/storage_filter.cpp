#include "policy/plugins/filters.hpp"

namespace unisched::policy::plugins {
namespace {

/// The requested storage class must exist with the requested free capacity.
class StorageFilter final : public ClusterFilter {
 public:
  const char* name() const override { return "storage"; }
  std::optional<std::string> reject(const model::SchedulingRequestSpec& request,
                                    const ReplicaDemand&,
                                    const ClusterCandidate& cluster) const override {
    const auto& wanted = request.placement.storage;
    if (!wanted) {
      return std::nullopt;
    }
    const int64_t needed = wanted->capacity ? wanted->capacity->value().value_or(0) : 0;
    for (const auto& storage : cluster.view->resources().storage) {
      if (storage.storage_class == wanted->storage_class) {
        const int64_t free = storage.capacity_bytes - storage.used_bytes;
        if (free < needed) {
          return "storage class \"" + wanted->storage_class + "\" has " + std::to_string(free) +
                 " bytes free, " + std::to_string(needed) + " needed";
        }
        return std::nullopt;
      }
    }
    return "no storage class \"" + wanted->storage_class + "\"";
  }
  bool passes_every_cluster(const model::SchedulingRequestSpec& request) const override {
    return !request.placement.storage;
  }
};

}  // namespace

std::shared_ptr<const ClusterFilter> make_storage_filter() {
  return std::make_shared<StorageFilter>();
}

}  // namespace unisched::policy::plugins
