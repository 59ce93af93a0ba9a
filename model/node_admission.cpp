#include "model/node_admission.hpp"

#include <algorithm>

#include "model/cluster_view.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"

namespace unisched::model {

std::string unusable_node(const NodeState& node) {
  if (node.name.empty()) {
    return {};
  }
  // The view itself takes any name; the door takes node names only.
  if (const std::string why = check_node_name(node.name); !why.empty()) {
    return "invalid node name: node " + quoted_brief(node.name) + ": " + why +
           "; the node is left out";
  }
  const auto problem = check_node(node);
  return problem ? problem->to_string() + "; the node is left out" : std::string();
}

void NodeAdmission::leave_out(std::string name, std::string reason, const Reasons& known) {
  const auto found = known.find(name);
  if (found == known.end() || found->second != reason) {
    if (news_.told.size() < kMaxNews) {
      news_.told.push_back({name, reason});
    } else {
      ++news_.untold;
    }
  }
  if (left_out_.size() < kMaxRemembered || left_out_.count(name) != 0) {
    left_out_[std::move(name)] = std::move(reason);
  }
}

void NodeAdmission::admit(ViewSnapshot& snapshot) {
  const Reasons before = std::move(left_out_);
  left_out_.clear();
  auto& nodes = snapshot.nodes;
  const auto usable_end =
      std::remove_if(nodes.begin(), nodes.end(), [&](const std::shared_ptr<const NodeState>& node) {
        std::string why = why_unusable(*node);
        if (why.empty()) {
          return false;
        }
        leave_out(node->name, std::move(why), before);
        return true;
      });
  nodes.erase(usable_end, nodes.end());
  for (LeftOutNode& unread : snapshot.left_out) {
    leave_out(std::move(unread.name), std::move(unread.reason), before);
  }
  snapshot.left_out.clear();
}

namespace {

// The removal of a node by name, in the form of the changes it joins (the pointer picks it).
NodeChange removal_of(const std::string& name, const NodeChange*) {
  NodeChange gone{NodeChangeKind::Remove, {}};
  gone.node.name = name;
  return gone;
}

SharedNodeChange removal_of(const std::string& name, const SharedNodeChange*) {
  auto gone = std::make_shared<NodeState>();
  gone->name = name;
  return {NodeChangeKind::Remove, std::move(gone)};
}

const NodeState& state_of(const NodeChange& change) {
  return change.node;
}
const NodeState& state_of(const SharedNodeChange& change) {
  return *change.node;
}

}  // namespace

std::string NodeAdmission::why_unusable(const NodeState& node) const {
  std::string why = unusable_node(node);
  if (why.empty() && also_ && !node.name.empty()) {
    why = also_(node);
  }
  return why;
}

template <class Change>
void NodeAdmission::admit_changes(std::vector<Change>& changes,
                                  const std::function<bool(const std::string&)>& held) {
  // Each change gives at most one: kept in place, without a second vector.
  auto kept = changes.begin();
  const auto keep = [&kept](Change&& change) {
    if (&*kept != &change) {  // never moved onto itself
      *kept = std::move(change);
    }
    ++kept;
  };
  for (Change& change : changes) {
    const std::string& name = state_of(change).name;
    if (change.kind == NodeChangeKind::Remove) {
      if (left_out_.erase(name) == 0 || held(name)) {
        keep(std::move(change));
      }
      continue;
    }
    if (std::string why = why_unusable(state_of(change)); !why.empty()) {
      leave_out(name, std::move(why), left_out_);
      if (held(name)) {
        keep(removal_of(name, static_cast<const Change*>(nullptr)));
      }
      continue;
    }
    if (!left_out_.empty() && left_out_.erase(name) != 0 && !held(name)) {
      change.kind = NodeChangeKind::Add;  // back from being left out
    }
    keep(std::move(change));
  }
  changes.erase(kept, changes.end());
}

void NodeAdmission::admit(std::vector<NodeChange>& changes,
                          const std::function<bool(const std::string&)>& held) {
  admit_changes(changes, held);
}

void NodeAdmission::admit(ViewUpdate& update, const std::function<bool(const std::string&)>& held) {
  admit_changes(update.changes, held);
  for (LeftOutNode& unread : update.left_out) {
    if (held(unread.name)) {
      update.changes.push_back(
          removal_of(unread.name, static_cast<const SharedNodeChange*>(nullptr)));
    }
    leave_out(std::move(unread.name), std::move(unread.reason), left_out_);
  }
  update.left_out.clear();
  if (!left_out_.empty()) {
    auto& usages = update.usage_changes;
    usages.erase(std::remove_if(usages.begin(), usages.end(),
                                [&](const NodeUsage& usage) { return left_out(usage.name); }),
                 usages.end());
  }
}

NodeAdmission::News NodeAdmission::take_news() {
  return std::exchange(news_, News{});
}

}  // namespace unisched::model
