// unisched describe cluster ID | quota NAME: one cluster or quota in detail, as the hub sees it.
#include <absl/strings/str_format.h>
#include <caf/scoped_actor.hpp>

#include <cstdio>
#include <map>

#include "messages/caf_types.hpp"
#include "messages/errors.hpp"
#include "model/printable.hpp"
#include "model/quantity.hpp"
#include "tools/unisched/hub_client.hpp"
#include "tools/unisched/quota_output.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

/// Bytes of storage as a quantity, as profiles write them ("240Ti"); an amount that is no whole
/// number of its unit is rounded, and says so ("about 2.9Ti"), rather than printed in bytes.
std::string storage_text(int64_t bytes) {
  static const char* const kUnits[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int unit = -1;
  while (unit + 1 < 6 && bytes >> (10 * (unit + 2)) > 0) {
    ++unit;
  }
  if (unit < 0 || bytes % (int64_t{1} << (10 * (unit + 1))) == 0) {
    return model::Quantity::from_units(bytes, model::QuantityFormat::BinarySI).to_string();
  }
  return absl::StrFormat(
      "about %.1f%s", static_cast<double>(bytes) / (int64_t{1} << (10 * (unit + 1))), kUnits[unit]);
}

using namespace unisched::atoms;

void print_cluster(const v1::ClusterViews& views) {
  for (const auto& home : views.homes()) {
    std::printf("Name:          %s\n", model::printable(home.cluster_id()).c_str());
    std::printf("Hosted on:     %s\n",
                home.shard_id().empty()
                    ? "the hub"
                    : model::printable(home.shard_id() + " (" + home.endpoint() + ")").c_str());
  }
  for (const auto& s : views.summaries()) {
    std::printf("Healthy:       %s\n", s.healthy() ? "yes" : "no");
    std::printf("Epoch/version: %llu/%llu\n", static_cast<unsigned long long>(s.epoch()),
                static_cast<unsigned long long>(s.version()));
    std::printf("Nodes:         %llu\n", static_cast<unsigned long long>(s.nodes()));
    if (s.nodes_left_out() > 0) {
      std::printf("Left out:      %llu nodes (their records are unusable: see the hub's log)\n",
                  static_cast<unsigned long long>(s.nodes_left_out()));
    }
    std::printf("Devices:       %llu (%llu free)\n", static_cast<unsigned long long>(s.devices()),
                static_cast<unsigned long long>(s.free_devices()));
    for (const auto& model : s.models()) {
      std::printf("  %-30s %llu (%llu free)\n", model::printable(model.model()).c_str(),
                  static_cast<unsigned long long>(model.devices()),
                  static_cast<unsigned long long>(model.free_devices()));
    }
    std::printf("Updates:       %llu applied, %llu duplicates, %llu gaps, %llu rejected\n",
                static_cast<unsigned long long>(s.updates_applied()),
                static_cast<unsigned long long>(s.duplicates()),
                static_cast<unsigned long long>(s.gaps()),
                static_cast<unsigned long long>(s.rejected()));
    std::printf("Resyncs:       %llu\n", static_cast<unsigned long long>(s.resyncs()));
    std::printf("Commits:       %llu accepted, %llu conflicts\n",
                static_cast<unsigned long long>(s.commits()),
                static_cast<unsigned long long>(s.conflicts()));
    std::printf("Placements:    %llu confirmed, %llu refused\n",
                static_cast<unsigned long long>(s.placements_confirmed()),
                static_cast<unsigned long long>(s.placements_refused()));
    std::printf("Staleness:     %lld ms\n", static_cast<long long>(s.staleness_ms()));
  }
  for (const auto& cluster : views.clusters()) {
    std::map<std::string, int> groups;
    for (const auto& node : cluster.nodes()) {
      ++groups[node.node_group().empty() ? "(none)" : node.node_group()];
    }
    std::printf("Node groups:\n");
    for (const auto& [group, count] : groups) {
      std::printf("  %-30s %d nodes\n", model::printable(group).c_str(), count);
    }
    for (const auto& storage : cluster.resources().storage()) {
      std::printf("Storage:       %s: %s of %s used\n",
                  model::printable(storage.storage_class()).c_str(),
                  storage_text(storage.used_bytes()).c_str(),
                  storage_text(storage.capacity_bytes()).c_str());
    }
  }
}

/// `describe quota NAME`: the quota of that name from the ledger's list.
int describe_quota(caf::scoped_actor& self, const HubConnection& connection,
                   const std::string& name, bool json) {
  int status = 1;
  self->request(connection.hub, connection.answer_wait, quotas_atom_v)
      .receive(
          [&](v1::QuotaList& list) {
            for (const auto& quota : list.quotas()) {
              if (quota.quota().name() != name) {
                continue;
              }
              if (json) {
                v1::QuotaList one;
                *one.add_quotas() = quota;
                std::printf("%s\n", runtime::dump_json(quotas_json(one)["quotas"][0]).c_str());
              } else {
                print_quota_detail(quota);
              }
              status = 0;
              return;
            }
            std::fprintf(stderr, "error: no quota %s\n", model::quoted_brief(name).c_str());
            status = 3;  // not found, as for a cluster
          },
          [&](caf::error& failure) {
            std::fprintf(stderr, "error: %s\n", connection.system->render(failure).c_str());
            status = messages::cli_exit_code(failure);
          });
  return status;
}

int run_describe(const ParsedArgs& args) {
  const auto& what = args.positional();
  if (what.size() != 2 || (what[0] != "cluster" && what[0] != "quota")) {
    std::fprintf(stderr, "error: usage: unisched describe cluster ID | quota NAME\n");
    return 2;
  }
  const std::string output = args.value("output", "text");
  if (output != "text" && output != "json") {
    std::fprintf(stderr, "error: --output must be text or json\n");
    return 2;
  }
  const auto connection = connect_to_hub(args);
  if (!connection) {
    return 1;
  }
  caf::scoped_actor self{*connection->system};
  if (what[0] == "quota") {
    return describe_quota(self, *connection, what[1], output == "json");
  }
  int status = 1;
  self->request(connection->hub, connection->answer_wait, nodes_atom_v, what[1], false)
      .receive(
          [&](v1::ClusterViews& views) {
            if (output == "json") {
              std::printf("%s\n", to_json(views).c_str());
            } else {
              print_cluster(views);
            }
            status = 0;
          },
          [&](caf::error& failure) {
            std::fprintf(stderr, "error: %s\n", connection->system->render(failure).c_str());
            status = messages::cli_exit_code(failure);
          });
  return status;
}

}  // namespace

Verb describe_verb() {
  return Verb{
      "describe",
      "Show one cluster or quota in detail",
      "unisched describe cluster ID | quota NAME [--hub HOST:PORT] [-o text|json]",
      "cluster: where its ClusterActor runs (the hub or a shard), its health, version,\n"
      "devices by model, update and commit counters, node groups and storage.\n"
      "quota: per resource hard, used, borrowed, lent, waiting demand and the borrowing and\n"
      "lending limits, then its caps.",
      [] {
        std::vector<Flag> flags = {{"output", 'o', "FORMAT", false, "text (default) or json"}};
        for (Flag& flag : hub_client_flags()) {
          flags.push_back(std::move(flag));
        }
        return flags;
      }(),
      run_describe,
  };
}

}  // namespace unisched::cli
