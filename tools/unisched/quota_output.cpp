#include "tools/unisched/quota_output.hpp"

#include <cstdio>
#include <set>

#include "model/printable.hpp"
#include "model/scheduling_quota.hpp"
#include "tools/unisched/table.hpp"

namespace unisched::cli {
namespace {

using Amounts = google::protobuf::Map<std::string, int64_t>;

int64_t amount_of(const Amounts& amounts, const std::string& resource) {
  const auto found = amounts.find(resource);
  return found == amounts.end() ? 0 : found->second;
}

/// The resources a row is printed for: those of `hard`, then any other in use or waiting.
std::set<std::string> resources_of(const v1::QuotaStatus& status) {
  std::set<std::string> out;
  for (const auto* amounts : {&status.quota().hard(), &status.used(), &status.pending()}) {
    for (const auto& [resource, amount] : *amounts) {
      out.insert(resource);
    }
  }
  return out;
}

/// The HARD cell: "-" for a resource the quota does not name (it does not limit it), not 0.
std::string hard_cell(const v1::QuotaDefinition& quota, const std::string& resource) {
  const auto found = quota.hard().find(resource);
  return found == quota.hard().end() ? std::string("-")
                                     : model::quota_amount_text(resource, found->second);
}

}  // namespace

void print_quota_table(const v1::QuotaList& list) {
  const int width = name_column_width(
      list.quotas(), [](const auto& q) { return model::printable(q.quota().name()); }, "NAME", 12);
  std::printf("%-*s %-14s %-12s %6s %-18s %10s %10s %10s %10s %10s %s\n", width, "NAME", "QUEUE",
              "COHORT", "WEIGHT", "RESOURCE", "HARD", "USED", "BORROWED", "LENT", "PENDING",
              "WAITING");
  for (const auto& status : list.quotas()) {
    const v1::QuotaDefinition& quota = status.quota();
    for (const std::string& resource : resources_of(status)) {
      const auto cell = [&](const Amounts& amounts) {
        return model::quota_amount_text(resource, amount_of(amounts, resource));
      };
      std::printf("%-*s %-14s %-12s %6lld %-18s %10s %10s %10s %10s %10s %llu\n", width,
                  model::printable(quota.name()).c_str(), model::printable(quota.queue()).c_str(),
                  quota.cohort().empty() ? "-" : model::printable(quota.cohort()).c_str(),
                  static_cast<long long>(quota.weight()), model::printable(resource).c_str(),
                  hard_cell(quota, resource).c_str(), cell(status.used()).c_str(),
                  cell(status.borrowed()).c_str(), cell(status.lent()).c_str(),
                  cell(status.pending()).c_str(),
                  static_cast<unsigned long long>(status.pending_requests()));
    }
  }
}

runtime::Json quotas_json(const v1::QuotaList& list) {
  runtime::Json out{{"quotas", runtime::Json::array()}, {"revision", list.revision()}};
  for (const auto& status : list.quotas()) {
    const v1::QuotaDefinition& quota = status.quota();
    out["quotas"].push_back(
        runtime::Json{{"name", quota.name()},
                      {"queue", quota.queue()},
                      {"cohort", quota.cohort()},
                      {"weight", quota.weight()},
                      {"hard", runtime::quota_amounts_json(quota.hard())},
                      {"used", runtime::quota_amounts_json(status.used())},
                      {"leased", runtime::quota_amounts_json(status.leased())},
                      {"borrowed", runtime::quota_amounts_json(status.borrowed())},
                      {"lent", runtime::quota_amounts_json(status.lent())},
                      {"pending", runtime::quota_amounts_json(status.pending())},
                      {"pending_requests", status.pending_requests()}});
  }
  return out;
}

void print_quota_detail(const v1::QuotaStatus& status) {
  const v1::QuotaDefinition& quota = status.quota();
  std::printf("Name:      %s\n", model::printable(quota.name()).c_str());
  std::printf("Queue:     %s\n", model::printable(quota.queue()).c_str());
  std::printf("Cohort:    %s\n", quota.cohort().empty() ? "none (lends and borrows nothing)"
                                                        : model::printable(quota.cohort()).c_str());
  std::printf("Weight:    %lld\n", static_cast<long long>(quota.weight()));
  std::printf("Waiting:   %llu requests\n",
              static_cast<unsigned long long>(status.pending_requests()));
  std::printf("%-20s %10s %10s %10s %10s %10s %10s %10s %10s\n", "RESOURCE", "HARD", "USED",
              "LEASED", "BORROWED", "LENT", "PENDING", "MAY-BORROW", "MAY-LEND");
  for (const std::string& resource : resources_of(status)) {
    const auto cell = [&](const Amounts& amounts) {
      return model::quota_amount_text(resource, amount_of(amounts, resource));
    };
    const auto limit = [&](bool given, const Amounts& amounts, const char* otherwise) {
      return given && amounts.count(resource) > 0 ? cell(amounts) : std::string(otherwise);
    };
    std::printf("%-20s %10s %10s %10s %10s %10s %10s %10s %10s\n",
                model::printable(resource).c_str(), hard_cell(quota, resource).c_str(),
                cell(status.used()).c_str(), cell(status.leased()).c_str(),
                cell(status.borrowed()).c_str(), cell(status.lent()).c_str(),
                cell(status.pending()).c_str(),
                limit(quota.has_borrowing_limit(), quota.borrowing_limit(),
                      quota.cohort().empty() ? "0" : "pool")
                    .c_str(),
                limit(quota.has_lending_limit(), quota.lending_limit(),
                      quota.cohort().empty() ? "0" : "all")
                    .c_str());
  }
  for (const auto& cap : quota.caps()) {
    std::string where;
    for (const auto& [key, value] : {std::pair<const char*, std::string>{"cluster", cap.cluster()},
                                     {"region", cap.region()},
                                     {"zone", cap.zone()},
                                     {"model", cap.model()}}) {
      if (!value.empty()) {
        where += (where.empty() ? "" : ", ") + std::string(key) + " " + value;
      }
    }
    std::printf("Cap:       %s:", model::printable(where).c_str());
    for (const auto& [resource, amount] : cap.hard()) {
      std::printf(" %s %s", model::printable(resource).c_str(),
                  model::quota_amount_text(resource, amount).c_str());
    }
    std::printf("\n");
  }
}

}  // namespace unisched::cli
