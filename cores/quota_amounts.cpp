#include "cores/quota_amounts.hpp"

#include "model/int128.hpp"

namespace unisched::actors {

void add_to(ResourceAmounts& sum, const ResourceAmounts& amounts, int64_t sign) {
  for (const auto& [resource, amount] : amounts) {
    int64_t& held = sum[resource];
    held = model::saturated_int64(model::int128_t{held} + model::int128_t{sign} * amount);
  }
}

ResourceAmounts demand_of(const QuotaPlacements& placements) {
  ResourceAmounts sum;
  for (const auto& [id, placement] : placements) {
    add_to(sum, placement.amounts);
  }
  return sum;
}

int64_t amount_in(const ResourceAmounts& amounts, const std::string& resource, int64_t otherwise) {
  const auto found = amounts.find(resource);
  return found == amounts.end() ? otherwise : found->second;
}

bool charge(ResourceAmounts& left, const ResourceAmounts& demand) {
  for (const auto& [resource, held] : left) {
    if (amount_in(demand, resource) > held) {
      return false;
    }
  }
  for (auto& [resource, held] : left) {
    held -= amount_in(demand, resource);
  }
  return true;
}

}  // namespace unisched::actors
