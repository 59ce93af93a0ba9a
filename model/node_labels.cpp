#include "model/node_labels.hpp"

#include <functional>
#include <mutex>
#include <unordered_map>

namespace unisched::model {
namespace {

size_t hash_of(const NodeLabels::Map& labels) {
  size_t hash = labels.size();
  const std::hash<std::string> text_hash;
  for (const auto& [key, value] : labels) {
    hash = hash * 1000003 ^ text_hash(key);
    hash = hash * 1000003 ^ text_hash(value);
  }
  return hash;
}

/// The label sets in use, by the hash of their content. An entry holds its set weakly: the set
/// lives as long as nodes carry it, and its deleter takes the entry out.
class InternTable {
 public:
  std::shared_ptr<const NodeLabels::Map> intern(NodeLabels::Map labels) {
    const size_t hash = hash_of(labels);
    std::lock_guard<std::mutex> lock(mutex_);
    auto [first, last] = sets_.equal_range(hash);
    for (auto entry = first; entry != last; ++entry) {
      if (*entry->second.map == labels) {
        if (auto alive = entry->second.weak.lock()) {
          return alive;
        }
        sets_.erase(entry);  // its last holder is going; its deleter finds it gone
        break;
      }
    }
    const auto* map = new NodeLabels::Map(std::move(labels));
    std::shared_ptr<const NodeLabels::Map> shared(map, [this, hash](const NodeLabels::Map* gone) {
      forget(hash, gone);
      delete gone;
    });
    sets_.emplace(hash, Entry{map, shared});
    return shared;
  }

 private:
  struct Entry {
    const NodeLabels::Map* map;
    std::weak_ptr<const NodeLabels::Map> weak;
  };

  void forget(size_t hash, const NodeLabels::Map* gone) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [first, last] = sets_.equal_range(hash);
    for (auto entry = first; entry != last; ++entry) {
      if (entry->second.map == gone) {
        sets_.erase(entry);
        return;
      }
    }
  }

  std::mutex mutex_;
  std::unordered_multimap<size_t, Entry> sets_;
};

InternTable& table() {
  // Never destroyed: label sets held by statics may be freed after it would be.
  static auto* const instance = new InternTable;
  return *instance;
}

}  // namespace

const NodeLabels::Map& NodeLabels::no_labels() {
  static const auto* const empty = new Map;  // never destroyed, as the table
  return *empty;
}

NodeLabels::NodeLabels(Map labels)
    : map_(labels.empty() ? nullptr : table().intern(std::move(labels))) {}

void NodeLabels::set(const std::string& key, std::string value) {
  Map changed = map();
  changed[key] = std::move(value);
  *this = NodeLabels(std::move(changed));
}

}  // namespace unisched::model
