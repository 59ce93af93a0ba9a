#include "cores/view_resync.hpp"

#include <utility>

namespace unisched::actors {

bool ViewResync::need() {
  if (stage_ != Stage::Idle) {
    return false;
  }
  stage_ = Stage::Needed;
  return true;
}

bool ViewResync::start_pull() {
  if (stage_ != Stage::Needed) {
    return false;
  }
  stage_ = Stage::InFlight;
  return true;
}

void ViewResync::pull_failed() {
  if (stage_ == Stage::InFlight) {
    stage_ = Stage::Needed;
  }
}

void ViewResync::snapshot_refused() {
  stage_ = Stage::Needed;
}

void ViewResync::snapshot_taken() {
  stage_ = Stage::Idle;
  lagging_.reset();
}

void ViewResync::snapshot_passed() {
  stage_ = Stage::Idle;
}

void ViewResync::hold_back(model::ViewUpdate update) {
  if (stash_.size() < kStashLength) {
    stash_.push_back(std::move(update));
  }
}

std::optional<model::ViewUpdate> ViewResync::next_in_order(const model::StreamPosition& view) {
  for (auto it = stash_.begin(); it != stash_.end();) {
    switch (model::judge_update(view, it->epoch, it->base_version, it->version)) {
      case model::UpdateVerdict::Apply: {
        model::ViewUpdate next = std::move(*it);
        stash_.erase(it);
        return next;
      }
      case model::UpdateVerdict::Gap:
        ++it;
        break;
      default:  // passed, or never applicable
        it = stash_.erase(it);
        break;
    }
  }
  return std::nullopt;
}

bool ViewResync::on_agent_position(const model::StreamPosition& view,
                                   const model::StreamPosition& agent) {
  const bool behind = agent.epoch != view.epoch || agent.version > view.version;
  if (!behind) {
    lagging_.reset();
    return false;
  }
  // Behind what an earlier report already said: those updates are not just in flight.
  const bool still_lagging = lagging_ && lagging_->epoch == agent.epoch &&
                             (agent.epoch != view.epoch || lagging_->version > view.version);
  lagging_ = agent;
  return still_lagging && need();
}

}  // namespace unisched::actors
