#include "runtime/quota_book.hpp"

#include <memory>

#include "runtime/journal_store.hpp"

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

namespace {

/// A declarations journal beside the request journal, whose lock covers it; null for no path.
std::shared_ptr<RecordStore> declarations_journal(const std::string& path,
                                                  const std::string& what) {
  if (path.empty()) {
    return nullptr;
  }
  return std::make_shared<JournalStore>(
      path, "keep a copy, then remove the damaged file and apply the " + what + " again",
      /*lock=*/false);
}

}  // namespace

QuotaBook::QuotaBook(std::shared_ptr<RecordStore> store)
    : KeyedBook(
          std::move(store), [](const v1::QuotaDefinition& q) { return q.queue(); },
          "quota definition") {}

QuotaBook::QuotaBook(const std::string& journal_path)
    : QuotaBook(declarations_journal(journal_path, "quotas")) {}

ProfileBook::ProfileBook(std::shared_ptr<RecordStore> store)
    : KeyedBook(
          std::move(store),
          [](const v1::ClusterRegistration& r) { return r.identity().cluster_id(); },
          "cluster profile") {}

ProfileBook::ProfileBook(const std::string& journal_path)
    : ProfileBook(declarations_journal(journal_path, "profiles")) {}

}  // namespace unisched::runtime
