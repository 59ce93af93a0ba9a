// ClusterView's upkeep of its totals and indexes as nodes come, change and go: the per-model
// device counts, the free-cpu and free-device indexes. Kept apart from the view's queries.
#include "model/cluster_view.hpp"

#include <algorithm>

namespace unisched::model {
namespace {

/// Calls `visit(model, devices, free, allocated_milli)` once per device model of the node. A node
/// has few devices: scanning them beats allocating a map.
template <class Visit>
void per_model(const NodeState& node, Visit visit) {
  const NodeDevices& devices = node.devices;
  for (size_t first = 0; first < devices.size(); ++first) {
    const Symbol& model = devices[first].model;
    bool counted = false;
    for (size_t i = 0; i < first && !counted; ++i) {
      counted = devices[i].model == model;
    }
    if (counted) {
      continue;
    }
    int32_t count = 0;
    int32_t free = 0;
    int64_t allocated_milli = 0;
    for (size_t i = first; i < devices.size(); ++i) {
      if (devices[i].model == model) {
        ++count;
        free += devices[i].allocated_milli == 0 ? 1 : 0;
        allocated_milli += devices[i].allocated_milli;
      }
    }
    visit(model, count, free, allocated_milli);
  }
}

}  // namespace

std::optional<ClusterView::IndexKeys> ClusterView::keys_of(const NodeState& node) {
  IndexKeys keys;
  keys.free_cpu = free_cpu_of(node);
  bool fits = true;
  per_model(node, [&](const Symbol& model, int32_t, int32_t free, int64_t) {
    if (keys.models == keys.free_devices.size()) {
      fits = false;
      return;
    }
    keys.free_devices[keys.models++] = {model, free};
  });
  return fits ? std::optional<IndexKeys>(keys) : std::nullopt;
}

void ClusterView::count(const NodeState& node, int sign) {
  count_amounts(node, sign);
  per_model(node, [&](const Symbol& model, int32_t devices, int32_t free, int64_t milli) {
    accelerators_.add(model, sign, {devices, free, milli});
  });
}

void ClusterView::count_amounts(const NodeState& node, int sign) {
  totals_.nodes += sign;
  totals_.schedulable_nodes += node.schedulable ? sign : 0;
  totals_.allocatable_cpu_milli += sign * node.allocatable_cpu_milli;
  totals_.allocated_cpu_milli += sign * node.allocated_cpu_milli;
  totals_.allocatable_memory_bytes += sign * node.allocatable_memory_bytes;
  totals_.allocated_memory_bytes += sign * node.allocated_memory_bytes;
  totals_.pods += sign * node.pod_count;
}

void ClusterView::index_free_devices(const KeyedNode& node, const Symbol& model, int32_t free,
                                     int sign) const {
  if (free == 0) {
    return;
  }
  if (sign > 0) {
    free_index_[model][free].insert(node);
    return;
  }
  const auto buckets = free_index_.find(model);
  if (buckets == free_index_.end()) {
    return;
  }
  if (auto bucket = buckets->second.find(free); bucket != buckets->second.end()) {
    bucket->second.erase(node);
    if (bucket->second.empty()) {
      buckets->second.erase(bucket);
    }
  }
  if (buckets->second.empty()) {
    free_index_.erase(buckets);
  }
}

void ClusterView::account(const HeldNode& held, int sign) {
  count(*held.node, sign);
  if (free_indexes_built_) {
    index(held, sign);
  }
}

void ClusterView::index(const HeldNode& held, int sign) const {
  const NodeState& node = *held.node;
  const KeyedNode entry = keyed(held);
  if (sign > 0) {
    free_cpu_index_.insert({free_cpu_of(node), entry});
  } else {
    free_cpu_index_.erase({free_cpu_of(node), entry});
  }
  per_model(node, [&](const Symbol& model, int32_t, int32_t free, int64_t) {
    index_free_devices(entry, model, free, sign);
  });
}

void ClusterView::build_free_indexes(const char* query) const {
  require_scheduling_indexes(query);
  if (free_indexes_built_) {
    return;
  }
  free_indexes_built_ = true;
  for (const HeldNode* held : by_name_) {
    index(*held, +1);
  }
}

void ClusterView::unindex(const HeldNode& held, const IndexKeys& keys) const {
  // The entries are found by the keys alone: the name, which orders them, is unchanged.
  const KeyedNode entry = keyed(held);
  free_cpu_index_.erase({keys.free_cpu, entry});
  for (size_t i = 0; i < keys.models; ++i) {
    index_free_devices(entry, keys.free_devices[i].first, keys.free_devices[i].second, -1);
  }
}

void ClusterView::move_free_cpu(const HeldNode& held, int64_t before, int64_t after) const {
  // The entry moves instead of being freed and allocated again, and stays put if unchanged
  // (most updates: the node's name is then not read for its key).
  if (before != after) {
    auto entry = free_cpu_index_.extract({before, keyed(held)});
    entry.value().free_cpu = after;
    free_cpu_index_.insert(std::move(entry));
  }
}

uint64_t ClusterView::name_key(const std::string& name) const {
  uint64_t key = 0;
  for (size_t i = shared_name_prefix_; i < shared_name_prefix_ + sizeof key; ++i) {
    key = key << 8 | (i < name.size() ? static_cast<unsigned char>(name[i]) : 0u);
  }
  return key;
}

void ClusterView::share_name_prefix() {
  const std::string& first = (*by_name_.begin())->name();
  const std::string& last = (*by_name_.rbegin())->name();
  const size_t shared = static_cast<size_t>(
      std::mismatch(first.begin(), first.end(), last.begin(), last.end()).first - first.begin());
  if (shared >= shared_name_prefix_) {
    return;
  }
  shared_name_prefix_ = shared;
  rekey(free_cpu_index_, [](FreeCpuEntry& entry) -> KeyedNode& { return entry.node; });
  for (auto& [model, buckets] : free_index_) {
    for (auto& [free, bucket] : buckets) {
      rekey(bucket, [](KeyedNode& node) -> KeyedNode& { return node; });
    }
  }
}

template <class Index, class NodeOf>
void ClusterView::rekey(Index& index, NodeOf node_of) const {
  // Keyed afresh in order: the keys of the new prefix order the entries as the old ones did.
  std::vector<typename Index::value_type> entries(index.begin(), index.end());
  for (auto& entry : entries) {
    KeyedNode& node = node_of(entry);
    node = keyed(*node.held);
  }
  index = Index(entries.begin(), entries.end());
}

void ClusterView::reindex(const HeldNode& held, const IndexKeys& before,
                          const IndexKeys& after) const {
  move_free_cpu(held, before.free_cpu, after.free_cpu);
  const KeyedNode node = keyed(held);
  const auto free_before = [&](const Symbol& model) {
    for (size_t i = 0; i < before.models; ++i) {
      if (before.free_devices[i].first == model) {
        return before.free_devices[i].second;
      }
    }
    return 0;
  };
  for (size_t i = 0; i < after.models; ++i) {
    const auto& [model, free] = after.free_devices[i];
    const int32_t was = free_before(model);
    if (was == free) {
      continue;
    }
    if (was == 0 || free == 0) {
      index_free_devices(node, model, was, -1);
      index_free_devices(node, model, free, +1);
      continue;
    }
    auto& buckets = free_index_[model];
    const auto from = buckets.find(was);
    auto entry = from->second.extract(node);
    if (from->second.empty()) {
      buckets.erase(from);
    }
    buckets[free].insert(std::move(entry));
  }
  for (size_t i = 0; i < before.models; ++i) {  // models the node no longer has
    const auto& [model, was] = before.free_devices[i];
    bool kept = false;
    for (size_t j = 0; j < after.models && !kept; ++j) {
      kept = after.free_devices[j].first == model;
    }
    if (!kept) {
      index_free_devices(node, model, was, -1);
    }
  }
}

}  // namespace unisched::model
