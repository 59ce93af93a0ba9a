#include "simulation/fault_kinds.hpp"

#include <sstream>

namespace unisched::simulation {

std::optional<FaultSet> FaultSet::parse(const std::string& list, std::string& error) {
  if (list == "all") {
    return FaultSet{};
  }
  FaultSet set;
  set.enabled.fill(false);
  std::istringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    if (item.empty()) {
      continue;
    }
    const auto kind = fault_named(item);
    if (!kind) {
      error =
          "unknown fault kind \"" + item + "\" (known: " + FaultSet{}.to_string(true) + ", or all)";
      return std::nullopt;
    }
    set.enabled[static_cast<size_t>(*kind)] = true;
  }
  if (set.enabled == std::array<bool, kFaultKinds>{}) {
    error = "no fault kind named";
    return std::nullopt;
  }
  return set;
}

std::string FaultSet::to_string(bool spelled_out) const {
  std::string names;
  size_t count = 0;
  for (size_t i = 0; i < kFaultKinds; ++i) {
    if (enabled[i]) {
      names += (names.empty() ? "" : ",") + std::string(kFaultNames[i]);
      ++count;
    }
  }
  return count == kFaultKinds && !spelled_out ? "all" : names;
}

}  // namespace unisched::simulation
