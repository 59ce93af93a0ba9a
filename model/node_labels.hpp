// NodeLabels: a node's labels, interned. The nodes of one node group carry the same labels, and
// every state of a node (the adapter's, the published one the views share, one decoded from the
// wire, a reserved node's own at the centre) would otherwise hold its own map: about 190 bytes
// per label per copy. Equal label sets share
// one immutable map, found by content when a set is made; a copy is one pointer. The map is
// freed when the last node that carries it goes.
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>

namespace unisched::model {

class NodeLabels {
 public:
  using Map = std::map<std::string, std::string>;
  using const_iterator = Map::const_iterator;

  NodeLabels();            ///< no labels
  NodeLabels(Map labels);  // NOLINT: implicit, labels read as a map
  NodeLabels(std::initializer_list<Map::value_type> labels) : NodeLabels(Map(labels)) {}

  const Map& map() const { return *map_; }
  const_iterator begin() const { return map_->begin(); }
  const_iterator end() const { return map_->end(); }
  const_iterator find(const std::string& key) const { return map_->find(key); }
  size_t count(const std::string& key) const { return map_->count(key); }
  size_t size() const { return map_->size(); }
  bool empty() const { return map_->empty(); }
  const std::string& at(const std::string& key) const { return map_->at(key); }

  /// Sets one label: the node's set is copied, changed and interned again (build a Map and
  /// assign it when setting several).
  void set(const std::string& key, std::string value);

  bool operator==(const NodeLabels& other) const {
    return map_ == other.map_ || *map_ == *other.map_;
  }
  bool operator!=(const NodeLabels& other) const { return !(*this == other); }

 private:
  std::shared_ptr<const Map> map_;
};

}  // namespace unisched::model
