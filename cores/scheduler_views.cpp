#include "cores/scheduler_views.hpp"

#include <algorithm>

#include "model/version_gate.hpp"

namespace unisched::actors {

bool SchedulerViews::add(policy::ClusterInfo info) {
  const std::string id = info.id;
  auto [entry, added] = clusters_.try_emplace(id);
  info.healthy = added ? info.healthy : entry->second.info.healthy;
  entry->second.info = std::move(info);
  candidates_current_ = false;
  return added;
}

void SchedulerViews::set_healthy(const std::string& cluster, bool healthy) {
  if (auto found = clusters_.find(cluster); found != clusters_.end()) {
    found->second.info.healthy = healthy;
  }
}

bool SchedulerViews::replace(const model::ViewRevision& whole) {
  const auto found = clusters_.find(whole.cluster_id);
  if (found == clusters_.end() || !whole.whole) {
    return false;
  }
  Cluster& local = found->second;
  model::ClusterView fresh;
  if (fresh.apply(whole.changes, model::Allocation::MayExceed)) {
    return false;
  }
  fresh.set_resources(whole.resources.value_or(model::ClusterResources{}));
  local.view = std::move(fresh);
  local.revision = whole.revision;
  candidates_current_ = candidates_current_ && local.subscribed;
  local.subscribed = true;
  return true;
}

SchedulerViews::FeedResult SchedulerViews::apply_feed(const model::ViewRevision& changes) {
  const auto found = clusters_.find(changes.cluster_id);
  if (found == clusters_.end() || changes.whole) {
    return FeedResult::Stale;
  }
  Cluster& local = found->second;
  const auto verdict =
      model::judge_revision(local.revision, changes.base_revision, changes.revision);
  if (verdict == model::UpdateVerdict::Duplicate) {
    return FeedResult::Stale;  // already have it
  }
  if (verdict != model::UpdateVerdict::Apply ||  // a gap: the copy missed a change
      local.view.apply(changes.changes, model::Allocation::MayExceed)) {
    return FeedResult::NeedsView;
  }
  if (changes.resources) {
    local.view.set_resources(*changes.resources);
  }
  local.revision = changes.revision;
  return FeedResult::Applied;
}

std::optional<uint64_t> SchedulerViews::revision_in_step(const std::string& cluster) const {
  const auto found = clusters_.find(cluster);
  if (found == clusters_.end() || !found->second.subscribed) {
    return std::nullopt;
  }
  return found->second.revision;
}

void SchedulerViews::lose(const std::string& cluster) {
  if (auto found = clusters_.find(cluster); found != clusters_.end()) {
    found->second.subscribed = false;
    candidates_current_ = false;
    ++found->second.incarnation;
  }
}

const std::vector<policy::ClusterCandidate>& SchedulerViews::candidates() {
  if (!candidates_current_) {
    candidates_.clear();
    for (auto& [id, local] : clusters_) {
      if (local.subscribed) {
        candidates_.push_back({&local.info, &local.view});
      }
    }
    candidates_current_ = true;
  }
  return candidates_;
}

bool SchedulerViews::any_in_step() const {
  return std::any_of(clusters_.begin(), clusters_.end(),
                     [](const auto& entry) { return entry.second.subscribed; });
}

}  // namespace unisched::actors
