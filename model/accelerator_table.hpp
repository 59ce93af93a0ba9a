// AcceleratorTable: a cluster's devices counted per model, in model name order. A cluster has a
// few models, so they are held inline in the view: every decision's filters read the table of
// every cluster, and a map's nodes cost a cache miss each (issue 21). Models are found by their
// symbol's pointer, which a count does for every model of every changed node.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include <absl/container/inlined_vector.h>

#include "model/symbol.hpp"

namespace unisched::model {

struct AcceleratorTotals {
  int64_t devices = 0;
  int64_t free_devices = 0;  ///< devices with nothing allocated
  int64_t allocated_milli = 0;
  bool operator==(const AcceleratorTotals& o) const {
    return devices == o.devices && free_devices == o.free_devices &&
           allocated_milli == o.allocated_milli;
  }
};

class AcceleratorTable {
 public:
  using Entry = std::pair<Symbol, AcceleratorTotals>;
  using const_iterator = const Entry*;

  const_iterator begin() const { return entries_.data(); }
  const_iterator end() const { return entries_.data() + entries_.size(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  /// The model's totals; throws std::out_of_range when no device of it is counted.
  const AcceleratorTotals& at(const Symbol& model) const {
    for (const Entry& entry : entries_) {
      if (entry.first == model) {
        return entry.second;
      }
    }
    throw std::out_of_range("no device of model " + model.str());
  }

  /// Adds the amounts to the model's totals (a negative sign takes them away); a model left
  /// without devices leaves the table.
  void add(const Symbol& model, int sign, const AcceleratorTotals& amounts) {
    auto entry = std::find_if(entries_.begin(), entries_.end(),
                              [&](const Entry& held) { return held.first == model; });
    if (entry == entries_.end()) {
      entry = entries_.insert(
          std::lower_bound(entries_.begin(), entries_.end(), model,
                           [](const Entry& held, const Symbol& name) { return held.first < name; }),
          Entry{model, {}});
    }
    entry->second.devices += sign * amounts.devices;
    entry->second.free_devices += sign * amounts.free_devices;
    entry->second.allocated_milli += sign * amounts.allocated_milli;
    if (entry->second.devices == 0) {
      entries_.erase(entry);
    }
  }

  bool operator==(const AcceleratorTable& other) const { return entries_ == other.entries_; }

 private:
  absl::InlinedVector<Entry, 2> entries_;
};

}  // namespace unisched::model
