#include "tools/unisched/run_output.hpp"

#include <absl/strings/str_format.h>
#include <spdlog/spdlog.h>

#include <map>
#include <string>

#include "model/scheduling_quota.hpp"
#include "runtime/json_report.hpp"
#include "tools/unisched/quota_output.hpp"
#include "tools/unisched/table.hpp"

namespace unisched::cli {
namespace {

/// "queued 12, committing 2" from counts by reason.
std::string by_reason(const google::protobuf::Map<std::string, uint64_t>& counts) {
  std::string text;
  for (const auto& [reason, count] :
       std::map<std::string, uint64_t>(counts.begin(), counts.end())) {
    text += (text.empty() ? "" : ", ") + reason + " " + std::to_string(count);
  }
  return text;
}

double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

/// One line per tenant with quotas: what it holds of each resource of its budget at the end.
void print_tenants(const v1::QuotaList& quotas, const v1::SchedulerSummary& scheduling,
                   std::FILE* out) {
  if (quotas.quotas_size() == 0) {
    return;
  }
  std::fprintf(out, "quotas: %llu decisions waited for quota\n",
               static_cast<unsigned long long>(scheduling.quota_queued()));
  for (const auto& status : quotas.quotas()) {
    std::string line;
    for (const auto& [resource, hard] : status.quota().hard()) {
      const auto used = status.used().find(resource);
      const auto borrowed = status.borrowed().find(resource);
      line += "  " + resource + " " +
              model::quota_amount_text(resource, used == status.used().end() ? 0 : used->second) +
              "/" + model::quota_amount_text(resource, hard) +
              (borrowed == status.borrowed().end()
                   ? ""
                   : " (" + model::quota_amount_text(resource, borrowed->second) + " borrowed)");
    }
    std::fprintf(out, "  tenant %-16s%s; %llu waiting\n", status.quota().queue().c_str(),
                 line.c_str(), static_cast<unsigned long long>(status.pending_requests()));
  }
}

}  // namespace

void print_table(const runtime::RunReport& report, std::FILE* out) {
  const int width = name_column_width(
      report.clusters, [](const auto& c) { return c.cluster_id(); }, "CLUSTER");
  // How often a cluster's health changed is in --report json; the table says whether it is healthy.
  std::fprintf(out, "\n%-*s %8s %7s %9s %9s %6s %5s %8s %7s %8s %8s\n", width, "CLUSTER", "VERSION",
               "NODES", "UPDATES", "DELTAS", "DUPS", "GAPS", "RESYNCS", "HEALTHY", "CPU USED",
               "GPU USED");
  std::map<std::string, std::pair<uint64_t, uint64_t>> models;  // model -> (devices, free)
  for (const auto& c : report.clusters) {
    const auto cpu = percent(static_cast<uint64_t>(c.allocated_cpu_milli()),
                             static_cast<uint64_t>(c.allocatable_cpu_milli()));
    std::fprintf(out, "%-*s %8llu %7llu %9llu %9llu %6llu %5llu %8llu %7s %7.1f%% %7.1f%%\n", width,
                 c.cluster_id().c_str(), static_cast<unsigned long long>(c.version()),
                 static_cast<unsigned long long>(c.nodes()),
                 static_cast<unsigned long long>(c.updates_applied()),
                 static_cast<unsigned long long>(c.deltas_applied()),
                 static_cast<unsigned long long>(c.duplicates()),
                 static_cast<unsigned long long>(c.gaps()),
                 static_cast<unsigned long long>(c.resyncs()), c.healthy() ? "yes" : "no", cpu,
                 percent(c.devices() - c.free_devices(), c.devices()));
    for (const auto& usage : c.models()) {
      models[usage.model()].first += usage.devices();
      models[usage.model()].second += usage.free_devices();
    }
  }
  for (const auto& [model, usage] : models) {
    std::fprintf(out, "  %-28s %5llu devices, %5.1f%% in use\n", model.c_str(),
                 static_cast<unsigned long long>(usage.first),
                 percent(usage.first - usage.second, usage.first));
  }
  const auto& w = report.workload;
  const auto& s = report.scheduling;
  std::fprintf(out, "%s",
               absl::StrFormat("\nrequests %d: placed %d, partially %d, "
                               "unschedulable %d, waiting %d, lost %d\n",
                               w.requests(), w.placed(), w.partially_placed(), w.unschedulable(),
                               w.waiting(), w.lost())
                   .c_str());
  if (w.waiting() > 0) {
    std::fprintf(out, "  waiting: %s; the oldest for %.1f s\n",
                 by_reason(w.waiting_by_reason()).c_str(), w.oldest_waiting_seconds());
  }
  std::fprintf(
      out, "%s",
      absl::StrFormat("commits %d, conflicts %d, retries %d, requeued %d; overcommits %d\n",
                      s.commits(), s.conflicts(), s.retries(), s.requeued(), report.overcommits)
          .c_str());
  for (const auto& [reason, count] : w.unschedulable_by_reason()) {
    std::fprintf(out, "  unschedulable by %-16s %llu cluster refusals\n", reason.c_str(),
                 static_cast<unsigned long long>(count));
  }
  print_tenants(report.quotas, s, out);
  std::fprintf(out, "decision latency p50 %.2f ms, p99 %.2f ms\n", w.latency_p50_ms(),
               w.latency_p99_ms());
  std::fprintf(out, "%zu clusters, %llu node deltas applied in %.1f s\n", report.clusters.size(),
               static_cast<unsigned long long>(report.deltas_applied),
               static_cast<double>(report.elapsed.count()) / 1000.0);
}

void print_json(const runtime::RunReport& report, const runtime::RunOptions& options) {
  using runtime::Json;
  Json out;
  out["duration_ms"] = report.elapsed.count();
  out["seed"] = options.seed;
  out["deltas_applied"] = report.deltas_applied;
  out["clusters"] = Json::array();
  for (const auto& c : report.clusters) {
    out["clusters"].push_back(Json{{"id", c.cluster_id()},
                                   {"version", c.version()},
                                   {"epoch", c.epoch()},
                                   {"nodes", c.nodes()},
                                   {"updates_applied", c.updates_applied()},
                                   {"deltas_applied", c.deltas_applied()},
                                   {"duplicates", c.duplicates()},
                                   {"gaps", c.gaps()},
                                   {"resyncs", c.resyncs()},
                                   {"rejected", c.rejected()},
                                   {"health_transitions", c.health_transitions()},
                                   {"healthy", c.healthy()},
                                   {"staleness_ms", c.staleness_ms()}});
  }
  const auto& w = report.workload;
  const auto& s = report.scheduling;
  out["requests"] = w.requests();
  out["placed"] = w.placed();
  out["partially_placed"] = w.partially_placed();
  out["unschedulable"] = w.unschedulable();
  out["unschedulable_by_reason"] = Json::object();
  for (const auto& [reason, count] : w.unschedulable_by_reason()) {
    out["unschedulable_by_reason"][reason] = count;
  }
  out["waiting"] = w.waiting();
  out["waiting_by_reason"] = Json::object();
  for (const auto& [reason, count] : w.waiting_by_reason()) {
    out["waiting_by_reason"][reason] = count;
  }
  out["oldest_waiting_s"] = runtime::significant(w.oldest_waiting_seconds(), 4);
  out["lost"] = w.lost();
  out["commits"] = s.commits();
  out["conflicts"] = s.conflicts();
  out["retries"] = s.retries();
  out["requeued"] = s.requeued();
  out["overcommits"] = report.overcommits;
  if (report.quotas.quotas_size() > 0) {
    out["quota_queued"] = s.quota_queued();
    out["quotas"] = quotas_json(report.quotas)["quotas"];
  }
  out["decision_latency_ms"] = Json{{"p50", runtime::significant(w.latency_p50_ms(), 4)},
                                    {"p99", runtime::significant(w.latency_p99_ms(), 4)}};
  std::printf("%s\n", runtime::dump_json(out).c_str());
}

void log_progress(const runtime::RunProgress& progress) {
  uint64_t deltas = 0;
  size_t healthy = 0;
  uint64_t resyncs = 0;
  for (const auto& summary : progress.clusters) {
    deltas += summary.deltas_applied();
    healthy += summary.healthy() ? 1 : 0;
    resyncs += summary.resyncs();
  }
  std::string workload = "; the schedulers did not answer in time";
  if (const auto& w = progress.workload) {
    const std::string oldest =
        w->waiting() > 0 ? absl::StrFormat(", oldest %.1f s", w->oldest_waiting_seconds()) : "";
    workload = absl::StrFormat("; %d waiting%s; %.0f decisions/s", w->waiting(), oldest,
                               progress.decisions_per_second);
  }
  spdlog::info("t={:.1f}s: {}/{} clusters healthy, {} node deltas applied, {} resyncs{}",
               static_cast<double>(progress.elapsed.count()) / 1000.0, healthy,
               progress.clusters.size(), deltas, resyncs, workload);
}

}  // namespace unisched::cli
