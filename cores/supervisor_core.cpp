#include "cores/supervisor_core.hpp"

#include "policy/splitmix.hpp"

namespace unisched::actors {

const char* describe(Lifecycle state) {
  switch (state) {
    case Lifecycle::Registering:
      return "registering";
    case Lifecycle::Resyncing:
      return "resyncing";
    case Lifecycle::Healthy:
      return "healthy";
    case Lifecycle::Suspect:
      return "suspect";
    case Lifecycle::Unhealthy:
      return "unhealthy";
    case Lifecycle::Lost:
      return "lost";
  }
  return "unknown";
}

bool SupervisorCore::add(const std::string& cluster) {
  return clusters_.try_emplace(cluster).second;
}

SupervisorCore::Admission SupervisorCore::admission(const std::string& cluster, bool same_agent,
                                                    bool cluster_actor_running) const {
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end()) {
    return Admission::New;
  }
  const Entry& entry = found->second;
  if (same_agent && cluster_actor_running && !entry.agent_gone) {
    // Our answer, or the bind that followed it, was lost on the way (a link cut off and
    // healed). Bound once more, the agent pushes what it holds (seed 7949).
    return Admission::BindAgain;
  }
  // Lost, or its agent gone while the ClusterActor restarted (the lifecycle then moved on to
  // resyncing): found by `unisched simulate --faults agent-crash,cluster-actor-crash`.
  if (entry.state != Lifecycle::Lost && !entry.agent_gone) {
    return Admission::AlreadyRegistered;
  }
  return cluster_actor_running ? Admission::Readmit : Admission::BeingRehomed;
}

Lifecycle SupervisorCore::state(const std::string& cluster) const {
  const auto found = clusters_.find(cluster);
  return found == clusters_.end() ? Lifecycle::Lost : found->second.state;
}

std::vector<std::string> SupervisorCore::to_probe() const {
  std::vector<std::string> out;
  for (const auto& [cluster, entry] : clusters_) {
    if (entry.state != Lifecycle::Lost) {
      out.push_back(cluster);
    }
  }
  return out;
}

void SupervisorCore::transition(const std::string& cluster, Entry& entry, Lifecycle next,
                                std::string why, SupervisorCommands& out) {
  if (entry.state == next) {
    return;
  }
  SupervisorCommand command;
  command.kind = SupervisorCommand::Kind::Transition;
  command.cluster = cluster;
  command.from = entry.state;
  command.to = next;
  command.why = std::move(why);
  out.push_back(std::move(command));
  entry.state = next;
}

SupervisorCommand SupervisorCore::resync(const std::string& cluster,
                                         std::optional<model::StreamPosition> position) {
  SupervisorCommand command;
  command.kind = SupervisorCommand::Kind::Resync;
  command.cluster = cluster;
  command.position = position;
  return command;
}

SupervisorCommand SupervisorCore::set_health(const std::string& cluster, bool healthy) {
  SupervisorCommand command;
  command.kind = SupervisorCommand::Kind::SetHealth;
  command.cluster = cluster;
  command.healthy = healthy;
  return command;
}

SupervisorCommands SupervisorCore::on_probe_answer(const std::string& cluster,
                                                   model::StreamPosition position,
                                                   const std::string& trouble) {
  SupervisorCommands out;
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end()) {
    return out;
  }
  Entry& entry = found->second;
  entry.misses = 0;
  SupervisorCommand report;
  report.kind = SupervisorCommand::Kind::ReportPosition;
  report.cluster = cluster;
  report.position = position;
  out.push_back(std::move(report));
  if (!trouble.empty()) {
    // The agent answers but its view stands still: nothing is placed on it until it moves.
    if (entry.state != Lifecycle::Unhealthy && entry.state != Lifecycle::Lost) {
      transition(cluster, entry, Lifecycle::Unhealthy, "its agent reports: " + trouble, out);
      out.push_back(set_health(cluster, false));
    }
    return out;
  }
  switch (entry.state) {
    case Lifecycle::Registering:
      // A new cluster is checked against where its agent stands: a snapshot only if its first
      // updates did not already bring the view there.
      transition(cluster, entry, Lifecycle::Resyncing, "checking the view against the agent", out);
      out.push_back(resync(cluster, position));
      break;
    case Lifecycle::Unhealthy:
      // A returning agent always gets a full snapshot.
      transition(cluster, entry, Lifecycle::Resyncing, "pulling a full snapshot", out);
      out.push_back(resync(cluster, std::nullopt));
      break;
    case Lifecycle::Suspect:
      transition(cluster, entry, Lifecycle::Healthy, "answered again", out);
      break;
    default:
      break;
  }
  return out;
}

SupervisorCommands SupervisorCore::on_probe_miss(const std::string& cluster) {
  SupervisorCommands out;
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end()) {
    return out;
  }
  Entry& entry = found->second;
  ++entry.misses;
  if (entry.state == Lifecycle::Lost || entry.state == Lifecycle::Unhealthy) {
    return out;
  }
  if (entry.misses >= max_misses_) {
    transition(cluster, entry, Lifecycle::Unhealthy,
               std::to_string(entry.misses) + " probes unanswered", out);
    out.push_back(set_health(cluster, false));
  } else if (entry.state == Lifecycle::Healthy) {
    transition(cluster, entry, Lifecycle::Suspect, "a probe went unanswered", out);
  }
  return out;
}

SupervisorCommands SupervisorCore::on_resync_done(const std::string& cluster, uint64_t version) {
  SupervisorCommands out;
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end() || found->second.state != Lifecycle::Resyncing) {
    return out;  // something else happened meanwhile (the agent was lost, say)
  }
  transition(cluster, found->second, Lifecycle::Healthy,
             "resynced at version " + std::to_string(version), out);
  out.push_back(set_health(cluster, true));
  return out;
}

SupervisorCommands SupervisorCore::on_resync_failed(const std::string& cluster,
                                                    const std::string& reason) {
  SupervisorCommands out;
  const auto found = clusters_.find(cluster);
  if (found != clusters_.end() && found->second.state == Lifecycle::Resyncing) {
    transition(cluster, found->second, Lifecycle::Unhealthy, "resync failed: " + reason, out);
  }
  return out;
}

SupervisorCommands SupervisorCore::on_agent_lost(const std::string& cluster,
                                                 const std::string& reason) {
  SupervisorCommands out;
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end()) {
    return out;
  }
  found->second.agent_gone = true;
  transition(cluster, found->second, Lifecycle::Lost, "agent exited: " + reason, out);
  out.push_back(set_health(cluster, false));
  return out;
}

SupervisorCommands SupervisorCore::on_agent_returned(const std::string& cluster) {
  SupervisorCommands out;
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end()) {
    return out;
  }
  found->second.misses = 0;
  found->second.agent_gone = false;
  // The next probe tells where the agent stands: in step with the view, it resumes where it
  // left off; otherwise (a new run, missed updates) the view is rebuilt from a snapshot.
  transition(cluster, found->second, Lifecycle::Registering, "agent registered again", out);
  return out;
}

SupervisorCommands SupervisorCore::on_cluster_actor_restarted(const std::string& cluster) {
  SupervisorCommands out;
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end()) {
    return out;
  }
  transition(cluster, found->second, Lifecycle::Resyncing, "pulling a full snapshot", out);
  out.push_back(resync(cluster, std::nullopt));
  return out;
}

std::optional<std::string> SupervisorCore::choose_home(const std::set<std::string>& shards,
                                                       const std::string& cluster) {
  std::optional<std::string> best;
  uint64_t best_score = 0;
  for (const std::string& shard : shards) {
    // FNV-1a alone leaves names that differ in one byte close together: one shard of three
    // never won. splitmix64's finaliser spreads them.
    const uint64_t score = policy::splitmix64(policy::stable_hash(shard + "/" + cluster));
    if (!best || score > best_score) {
      best = shard;
      best_score = score;
    }
  }
  return best;
}

}  // namespace unisched::actors
