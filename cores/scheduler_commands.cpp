#include "cores/scheduler_commands.hpp"

#include <algorithm>

namespace unisched::actors {
namespace {

using Decision = RequestDecision;

/// Moves every element of `from` to the end of `to` (the messages hold strings and decisions:
/// a copy would allocate them again).
template <class T>
void move_to_end(std::vector<T>& from, std::vector<T>& to) {
  if (to.empty()) {
    to = std::move(from);
    return;
  }
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

}  // namespace

Decision::Replica replica_of(const std::string& placement_id,
                             const policy::ReplicaPlacement& placement) {
  return Decision::Replica{placement_id, placement.cluster, placement.node, placement.devices,
                           placement.device_milli};
}

RoundMessages& SchedulerCommands::round(uint64_t id) {
  const auto found = std::find_if(rounds.begin(), rounds.end(), [&](const RoundMessages& messages) {
    return messages.round == id;
  });
  if (found != rounds.end()) {
    return *found;
  }
  rounds.push_back(RoundMessages{id, {}, {}, {}});
  return rounds.back();
}

void SchedulerCommands::append(SchedulerCommands&& later) {
  for (RoundMessages& messages : later.rounds) {
    RoundMessages& mine = round(messages.round);
    move_to_end(messages.commits, mine.commits);
    if (messages.quota_take) {
      mine.quota_take = std::move(messages.quota_take);
    }
    move_to_end(messages.refresh, mine.refresh);
  }
  move_to_end(later.quota_lease_uses, quota_lease_uses);
  move_to_end(later.quota_releases, quota_releases);
  move_to_end(later.quota_withdrawals, quota_withdrawals);
  move_to_end(later.releases, releases);
  move_to_end(later.replies, replies);
  move_to_end(later.updates, updates);
  move_to_end(later.forgotten, forgotten);
  advance_later = advance_later || later.advance_later;
}

Decision::Diagnosis diagnosis(std::string cluster, std::string plugin, std::string reason) {
  return Decision::Diagnosis{std::move(cluster), std::move(plugin), std::move(reason)};
}

ClusterRelease release_of(const std::string& cluster,
                          const std::vector<Decision::Replica>& replicas) {
  ClusterRelease release{cluster, {}};
  for (const auto& replica : replicas) {
    release.placement_ids.push_back(replica.placement_id);
  }
  return release;
}

}  // namespace unisched::actors
