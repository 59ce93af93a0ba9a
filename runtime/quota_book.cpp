#include "runtime/quota_book.hpp"

namespace unisched::runtime {
namespace {

using Amounts = google::protobuf::Map<std::string, int64_t>;

/// Quantities of validated quotas fit: cpu in whole milli-cores, the rest in whole units.
void fill(Amounts& out, const std::map<std::string, model::Quantity>& amounts) {
  for (const auto& [resource, amount] : amounts) {
    out[resource] =
        resource == "memory" ? amount.value().value_or(0) : amount.milli_value().value_or(0);
  }
}

}  // namespace

v1::QuotaDefinition quota_definition(const model::SchedulingQuota& quota,
                                     const std::string& manifest) {
  v1::QuotaDefinition out;
  out.set_name(quota.metadata.name);
  out.set_queue(quota.spec.queue);
  out.set_cohort(quota.spec.cohort);
  out.set_weight(quota.spec.weight);
  fill(*out.mutable_hard(), quota.spec.hard);
  out.set_has_borrowing_limit(!quota.spec.borrowing_limit.empty());
  fill(*out.mutable_borrowing_limit(), quota.spec.borrowing_limit);
  out.set_has_lending_limit(!quota.spec.lending_limit.empty());
  fill(*out.mutable_lending_limit(), quota.spec.lending_limit);
  for (const model::QuotaCap& cap : quota.spec.caps) {
    v1::QuotaCap& wire = *out.add_caps();
    wire.set_cluster(cap.cluster);
    wire.set_region(cap.region);
    wire.set_zone(cap.zone);
    wire.set_model(cap.model);
    fill(*wire.mutable_hard(), cap.hard);
  }
  out.set_manifest(manifest);
  return out;
}

QuotaBook::QuotaBook(std::string journal_path)
    : KeyedJournal(
          std::move(journal_path), [](const v1::QuotaDefinition& q) { return q.queue(); },
          "quota definition",
          "keep a copy, then remove the damaged file and apply the quotas again") {}

ProfileBook::ProfileBook(std::string journal_path)
    : KeyedJournal(
          std::move(journal_path),
          [](const v1::ClusterRegistration& r) { return r.identity().cluster_id(); },
          "cluster profile",
          "keep a copy, then remove the damaged file and apply the profiles again") {}

}  // namespace unisched::runtime
