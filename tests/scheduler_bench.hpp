// A test bench for SchedulerCore: ClusterStates stand in for the ClusterActors and answer its
// commits, so what a commit or a release does at the cluster is checked too.
#pragma once

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cores/cluster_core.hpp"
#include "cores/scheduler_core.hpp"
#include "messages/convert.hpp"
#include "policy/framework.hpp"
#include "tests/policy_fixtures.hpp"

namespace unisched::testing {

inline policy::Policy preset(const std::string& name) {
  std::string error;
  auto policy = policy::Registry::builtin().preset(name, error);
  BOOST_TEST_REQUIRE(policy.has_value(), error);
  return *policy;
}

/// ClusterStates as the clusters, and one SchedulerCore deciding on copies of their views.
struct Bench {
  std::map<std::string, actors::ClusterCore> clusters;
  actors::SchedulerCore scheduler;
  actors::SchedulerCore::Clock::time_point now{std::chrono::seconds(1)};

  explicit Bench(actors::SchedulerSettings settings = {}, policy::Policy policy = preset("spread"))
      : scheduler(std::move(policy), with_seed(settings)) {}

  static actors::SchedulerSettings with_seed(actors::SchedulerSettings settings) {
    settings.draw_seed = settings.draw_seed == 0 ? 7 : settings.draw_seed;
    return settings;
  }

  void add(const std::string& id, std::vector<model::NodeState> nodes,
           const std::string& region = "r1") {
    actors::ClusterCore& cluster = clusters.emplace(id, actors::ClusterCore(id)).first->second;
    model::ViewUpdate update;
    update.cluster_id = id;
    update.epoch = 1;
    update.version = 1;
    for (auto& node : nodes) {
      update.changes.push_back(model::share({model::NodeChangeKind::Add, std::move(node)}));
    }
    BOOST_TEST_REQUIRE((cluster.on_update(update).status == actors::AckStatus::Applied));
    cluster.set_healthy(true);
    scheduler.views().add({id, region, region + "-a", model::MachineType::VirtualMachine, true});
    BOOST_TEST_REQUIRE(scheduler.views().replace(*cluster.published().whole()));
  }

  /// What the cluster answers to `commit`, as the ClusterActor would, and why.
  std::pair<actors::CommitResult, std::string> answer(const actors::ClusterCommit& commit) {
    const auto outcome = clusters.at(commit.cluster_id).commit(commit.commit, commit.mode);
    switch (outcome.status) {
      case actors::CommitStatus::Accepted:
        return {actors::CommitResult::Accepted, outcome.reason};
      case actors::CommitStatus::Conflict:
        return {actors::CommitResult::Conflict, outcome.reason};
      default:
        return {actors::CommitResult::Refused, outcome.reason};
    }
  }
  actors::CommitResult commit(const actors::ClusterCommit& commit) { return answer(commit).first; }

  /// Releases reach their clusters, as they would over the actors' links.
  void release(const actors::SchedulerCommands& commands) {
    for (const auto& order : commands.releases) {
      clusters.at(order.cluster_id).release(order.placement_ids);
    }
  }

  /// Answers every commit of `commands` as the clusters do (and any quota take after the
  /// commits, as a ledger with room does), and what follows, until a decision.
  actors::SchedulerCommands run(actors::SchedulerCommands commands) {
    actors::SchedulerCommands all;
    for (int step = 0; step < 50 && !commands.rounds.empty(); ++step) {
      release(commands);
      actors::SchedulerCommands next;
      for (const actors::RoundMessages& round : commands.rounds) {
        if (!round.refresh.empty()) {
          for (const std::string& id : round.refresh) {
            scheduler.views().replace(*clusters.at(id).published().whole());
          }
          next.append(scheduler.on_refreshed(round.round, now));
        }
        for (const auto& commit : round.commits) {
          const auto [result, reason] = answer(commit);
          next.append(
              scheduler.on_commit_result(round.round, commit.cluster_id, result, reason, now));
        }
        if (round.quota_take) {
          next.append(scheduler.on_quota_result(round.round, actors::QuotaResult::Taken, "", now));
        }
      }
      commands.rounds.clear();
      all.append(std::move(commands));
      commands = std::move(next);
    }
    release(commands);
    all.append(std::move(commands));
    return all;
  }

  size_t reservations() const {
    size_t total = 0;
    for (const auto& [id, cluster] : clusters) {
      total += cluster.reservations();
    }
    return total;
  }
};

/// The one round `commands` started or moved on.
template <typename Commands>
auto& only_round(Commands& commands) {
  BOOST_TEST_REQUIRE(commands.rounds.size() == 1u);
  return commands.rounds.front();
}

}  // namespace unisched::testing
