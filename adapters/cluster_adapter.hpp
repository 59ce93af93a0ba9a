// The minimal contract a cluster implements to join unisched. An adapter describes its cluster,
// reports node state (in full, and as changes the way a watch delivers them), and carries out
// placements. Nothing above an adapter knows a cluster's internals.
#pragma once

#include <string>
#include <vector>

#include "model/cluster_profile.hpp"
#include "model/node_state.hpp"

namespace unisched::adapters {

/// What a placement takes on one node.
struct Placement {
  std::string id;    ///< unique per placement; release() names it
  std::string node;  ///< the node's name
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  std::vector<int32_t> devices;  ///< indexes into the node's devices
  int32_t milli_per_device = model::kWholeDeviceMilli;
  std::vector<int32_t> host_ports;  ///< ascending
  std::string pod_template;         ///< the request's PodTemplateSpec as JSON; empty: none
};

enum class PlacementOutcome {
  Applied,
  Pending,        ///< accepted for now; the cluster decides later (poll_outcomes reports it)
  NoSuchNode,     ///< the node is gone
  Unschedulable,  ///< the node is draining or cordoned
  DoesNotFit,     ///< not enough free cpu, memory, pods or device share, or a port is in use
  DuplicateId,    ///< a placement with this id is already running
};

const char* describe(PlacementOutcome outcome);

/// How a pending placement ended: Applied, or refused with the cluster's own reason (a kubelet
/// saying "OutOfnvidia.com/gpu").
struct LaterOutcome {
  std::string id;
  PlacementOutcome outcome = PlacementOutcome::Applied;
  std::string reason;  ///< for a refusal; empty: describe(outcome)
};

class ClusterAdapter {
 public:
  virtual ~ClusterAdapter() = default;

  /// The cluster as its profile describes it.
  virtual const model::ClusterResourceProfile& profile() const = 0;

  /// Every node as it is now.
  virtual std::vector<model::NodeState> list_nodes() const = 0;

  /// The node changes since the previous call, in the order they happened.
  virtual std::vector<model::NodeChange> poll_changes() = 0;

  /// The cluster's shared resources as they are now.
  virtual model::ClusterResources resources() const = 0;

  /// Reserves what `placement` names on its node; the change shows in the next poll. A cluster
  /// that answers later says Pending, and poll_outcomes() reports the answer.
  virtual PlacementOutcome apply(const Placement& placement) = 0;

  /// How pending placements ended since the previous call. An Applied one's node changes are
  /// in the poll_changes() that follows this call.
  virtual std::vector<LaterOutcome> poll_outcomes() { return {}; }

  /// Frees a placement's resources; false when no such placement is running.
  virtual bool release(const std::string& placement_id) = 0;

  /// The placements running or pending on the cluster as it shows them, including those an
  /// earlier run of the agent made: what a release of every placement of a request looks
  /// through (the agent that made them may have restarted since).
  virtual std::vector<std::string> running_placements() const = 0;

  /// Placements whose work ended on the cluster by itself since the previous call (a pod that
  /// completed or failed after it ran, or was deleted by someone else), never ones released
  /// through release(). Their resources free up in the poll_changes() that follows. After a
  /// list_nodes() (what an agent that starts over calls first), work that ended recently should
  /// be reported again where the cluster still shows it: the agent before may have died before
  /// telling the centre. Repeats are harmless.
  virtual std::vector<std::string> poll_finished() { return {}; }

  /// Whether the adapter read its whole cluster again since the previous call because it lost
  /// track of the changes (a watch's 410 Gone): the centre should then take the agent's state as
  /// a full snapshot, not as one more change. Reset by the call.
  virtual bool take_relisted() { return false; }
  /// Whether the adapter carries out placements; one that does not joins as a view only and
  /// the centre sends it none.
  virtual bool takes_placements() const { return true; }
  /// Why the adapter cannot see its cluster now (its source has failed for a while), or empty.
  /// Its agent then answers the centre's probes UNHEALTHY with this text, and the centre places
  /// nothing there until it is empty again and the view has been pulled whole.
  virtual std::string trouble() const { return {}; }
};

}  // namespace unisched::adapters
