#include "cores/quota_wire.hpp"

namespace unisched::actors {

ResourceAmounts amounts_of(const google::protobuf::Map<std::string, int64_t>& amounts) {
  return {amounts.begin(), amounts.end()};
}

void fill(google::protobuf::Map<std::string, int64_t>& out, const ResourceAmounts& amounts) {
  for (const auto& [resource, amount] : amounts) {
    out[resource] = amount;
  }
}

v1::QuotaPlacement to_wire(const std::string& id, const QuotaPlacement& placement) {
  v1::QuotaPlacement out;
  out.set_id(id);
  fill(*out.mutable_amounts(), placement.amounts);
  out.set_cluster(placement.cluster);
  out.set_region(placement.region);
  out.set_zone(placement.zone);
  out.set_model(placement.model);
  return out;
}

QuotaTake take_of(const v1::QuotaTakeRequest& request) {
  QuotaTake take{request.work_id(), request.priority(), {}};
  take.commit.queue = request.queue();
  for (const auto& placement : request.placements()) {
    take.commit.placements[placement.id()] =
        QuotaPlacement{amounts_of(placement.amounts()), placement.cluster(), placement.region(),
                       placement.zone(), placement.model()};
  }
  return take;
}

v1::QuotaTakeRequest to_wire(const QuotaTake& take) {
  v1::QuotaTakeRequest out;
  out.set_work_id(take.work_id);
  out.set_queue(take.commit.queue);
  out.set_priority(take.priority);
  for (const auto& [id, placement] : take.commit.placements) {
    *out.add_placements() = to_wire(id, placement);
  }
  return out;
}

v1::QuotaLeaseUse to_wire(const QuotaLeaseUse& use) {
  v1::QuotaLeaseUse out;
  out.set_lease_id(use.lease_id);
  *out.mutable_take() = to_wire(use.take);
  return out;
}

}  // namespace unisched::actors
