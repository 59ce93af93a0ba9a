// Which of an agent's nodes the centre holds. A node whose own record is unusable (a name that is
// no node name, more devices than a node may offer, an amount out of range, more in use than it
// has, a field its reader could not read) is left out: the view holds the rest of its cluster as
// if that node were not there, and holds it again from its first usable state. One broken or
// hostile node never takes its whole cluster out, as refusing the update or snapshot would.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/view_update.hpp"

namespace unisched::model {

/// Why `node` cannot be held, or an empty string. A node without a name is not judged here: it
/// cannot be left out by name, and the view refuses the change or snapshot that carries it.
std::string unusable_node(const NodeState& node);

class NodeAdmission {
 public:
  /// A rule of the caller's beside unusable_node() (an agent bounds a node's size on the wire):
  /// why a node is unusable, or an empty string.
  using Rule = std::function<std::string(const NodeState&)>;
  explicit NodeAdmission(Rule also = {}) : also_(std::move(also)) {}

  /// Names of nodes left out that are remembered at most: a sender that invents names does not
  /// grow the centre without bound (one forgotten that comes back usable is refused as unknown
  /// and the cluster is resynced).
  static constexpr size_t kMaxRemembered = 100'000;

  /// Keeps the snapshot's usable nodes; the nodes left out are then exactly the others and
  /// those its reader could not read (`snapshot.left_out`, emptied).
  void admit(ViewSnapshot& snapshot);

  /// The update's changes as the view can take them, `held` saying which nodes it holds: an
  /// unusable state of a held node removes it, of another node is dropped; a usable state of a
  /// node left out adds it; a removal of a node left out, and its usage, are dropped. Nodes its
  /// reader could not read (`update.left_out`, emptied) count as unusable states.
  void admit(ViewUpdate& update, const std::function<bool(const std::string&)>& held);
  /// The same for an agent's own changes, `held` saying which nodes it published.
  void admit(std::vector<NodeChange>& changes, const std::function<bool(const std::string&)>& held);

  /// Nodes left out, or left out for another reason, since the last call: each is told once,
  /// the first kMaxNews of them by name, the rest counted.
  struct News {
    std::vector<LeftOutNode> told;
    size_t untold = 0;
  };
  static constexpr size_t kMaxNews = 32;
  News take_news();

  size_t size() const { return left_out_.size(); }
  bool left_out(const std::string& name) const { return left_out_.count(name) != 0; }

 private:
  using Reasons = std::map<std::string, std::string, std::less<>>;  // name -> why left out
  std::string why_unusable(const NodeState& node) const;
  template <class Change>
  void admit_changes(std::vector<Change>& changes,
                     const std::function<bool(const std::string&)>& held);
  /// Leaves a node out; news unless `known` left it out for the same reason.
  void leave_out(std::string name, std::string reason, const Reasons& known);

  Rule also_;
  Reasons left_out_;
  News news_;
};

}  // namespace unisched::model
