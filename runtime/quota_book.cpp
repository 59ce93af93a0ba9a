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

QuotaBook::QuotaBook(std::string journal_path) : journal_path_(std::move(journal_path)) {}

absl::Status QuotaBook::recover(std::vector<std::string>& warnings) {
  if (journal_path_.empty()) {
    return absl::OkStatus();
  }
  const auto contents = read_journal(journal_path_);
  if (!contents.ok()) {
    return contents.status();
  }
  if (!contents->damaged.empty()) {
    return absl::DataLossError(journal_path_ +
                               ": damaged records followed by intact ones; refusing to start "
                               "(keep a copy, then remove the damaged file and apply the "
                               "quotas again)");
  }
  if (contents->torn_tail) {
    warnings.push_back(journal_path_ + ": the last write did not finish; " +
                       describe(*contents->torn_tail) + " cut");
  }
  for (const std::string& bytes : contents->records) {
    v1::QuotaDefinition definition;
    if (!definition.ParseFromString(bytes) || definition.queue().empty()) {
      return absl::DataLossError(journal_path_ +
                                 ": an intact record is not a quota definition; refusing to start");
    }
    by_queue_[definition.queue()] = std::move(definition);
  }
  std::vector<std::string> compact;
  for (const auto& [queue, definition] : by_queue_) {
    compact.push_back(definition.SerializeAsString());
  }
  auto appender = compact_journal(journal_path_, compact);
  if (!appender.ok()) {
    return appender.status();
  }
  journal_.emplace(std::move(*appender));
  return absl::OkStatus();
}

bool QuotaBook::record(const v1::QuotaDefinition& definition) {
  if (!journal_path_.empty() &&
      (!journal_ || !journal_->append(definition.SerializeAsString()).ok())) {
    return false;
  }
  by_queue_[definition.queue()] = definition;
  return true;
}

std::vector<v1::QuotaDefinition> QuotaBook::definitions() const {
  std::vector<v1::QuotaDefinition> out;
  for (const auto& [queue, definition] : by_queue_) {
    out.push_back(definition);
  }
  return out;
}

}  // namespace unisched::runtime
