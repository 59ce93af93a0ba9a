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

  NodeLabels() = default;  ///< no labels
  NodeLabels(Map labels);  // NOLINT: implicit, labels read as a map
  NodeLabels(std::initializer_list<Map::value_type> labels) : NodeLabels(Map(labels)) {}

  const Map& map() const { return map_ ? *map_ : no_labels(); }
  const_iterator begin() const { return map().begin(); }
  const_iterator end() const { return map().end(); }
  const_iterator find(const std::string& key) const { return map().find(key); }
  size_t count(const std::string& key) const { return map().count(key); }
  size_t size() const { return map_ ? map_->size() : 0; }
  bool empty() const { return !map_; }
  const std::string& at(const std::string& key) const { return map().at(key); }

  /// Sets one label: the node's set is copied, changed and interned again (build a Map and
  /// assign it when setting several).
  void set(const std::string& key, std::string value);

  bool operator==(const NodeLabels& other) const {
    return map_ == other.map_ || map() == other.map();
  }
  bool operator!=(const NodeLabels& other) const { return !(*this == other); }

 private:
  static const Map& no_labels();

  /// Null when there are none: most nodes have no labels, and a shared empty set's count would
  /// be touched by every thread that makes or frees a node state.
  std::shared_ptr<const Map> map_;
};

}  // namespace unisched::model
