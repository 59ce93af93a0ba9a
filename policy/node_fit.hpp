// Whether one replica fits on one node, and on which of its devices.
#pragma once

#include <absl/container/inlined_vector.h>

#include <optional>
#include <string>
#include <vector>

#include "model/node_state.hpp"
#include "policy/cycle_state.hpp"
#include "policy/demand.hpp"

namespace unisched::policy {

/// The first reason a node cannot take a replica, in the order they are checked.
enum class NodeMisfit {
  Unschedulable,  ///< draining or cordoned
  Pods,           ///< no pod slot left
  Cpu,
  Memory,
  HostPort,          ///< a requested host port is in use
  Devices,           ///< not enough free devices of the model, memory and link asked for
  WholeDevicesOnly,  ///< a share of a device asked of a node that counts devices whole
};

const char* describe(NodeMisfit misfit);

/// Per device of a fit, in the order chosen. Inline: a decision fits every node it offers, and
/// a replica takes a few devices of a node's handful (two lists on the heap were four calls to
/// the allocator per node offered).
using DeviceList = absl::InlinedVector<int32_t, 8>;

struct NodeFit {
  std::optional<NodeMisfit> misfit;  ///< set when the replica does not fit
  DeviceList devices;                ///< indexes of the devices chosen, when it fits
  DeviceList device_milli;           ///< what is taken of each of them (1000: whole)
  bool fits() const { return !misfit; }
};

/// Checks `demand` against `node`. Devices are chosen whole and free; for a link requirement
/// all of one demand's devices come from one topology group linked at least that well; among
/// groups that can serve, the one with the fewest free devices is taken (best fit), so large
/// groups stay whole for large requests.
/// Picks the device a share of one goes to, among `candidates`: the indexes of the devices that
/// can hold it, in index order.
class ShareChooser {
 public:
  virtual ~ShareChooser() = default;
  /// `cycle`: the decision's draws, for a chooser that draws.
  virtual int32_t choose(const model::NodeState& node, const ReplicaDemand& demand,
                         const std::vector<int32_t>& candidates, CycleState& cycle) const = 0;
};

/// A chooser with the decision it chooses for.
struct ChooserInCycle {
  const ShareChooser* chooser = nullptr;
  CycleState* cycle = nullptr;
};

/// `with.chooser` picks the device of a share (drawing from `with.cycle`); without one, the
/// device left with the least idle share (best fit), the lowest index on a tie.
NodeFit fit_on_node(const model::NodeState& node, const ReplicaDemand& demand,
                    ChooserInCycle with = {});

/// `node` with the replica's resources taken (the devices of `fit`, its ports, cpu, memory).
void take(model::NodeState& node, const ReplicaDemand& demand, const NodeFit& fit);

}  // namespace unisched::policy
