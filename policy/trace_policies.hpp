// The policies of the FGD paper's trace experiment ("Beware of Fragmentation", ATC'23), by the
// paper's names, and unisched's improvement on FGD. Each scores as the paper's simulator does:
// in whole numbers (except Random, whose single random winner has no ties to cut), ties to the
// smaller node name (its kube-scheduler is patched so), where the simulator prefixes each name
// with its place in a random order drawn from the run's seed: TieBreak::Shuffled, seeded by
// Policy::tie_seed (the replay sets it to the run's seed).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policy/fragmentation.hpp"
#include "policy/framework.hpp"
#include "policy/plugins/gpu_clustering.hpp"

namespace unisched::policy {

/// What some of the policies read besides the views.
struct TracePolicyInputs {
  std::vector<PodShape> typical_shapes;  ///< FGD's workload
};

/// "bestfit", "dotprod", "gpupacking", "gpuclustering" (whose ledger of the pods on each node is
/// its policy's observer: give it to one scheduler), "random", "fgd", or "fgd-packed" (FGD
/// whose ties go to the node with more of its GPU in use, then by TieBreak::Hashed, so that
/// equal nodes fill in one fixed order that mixes node kinds and ignores cluster bounds), or
/// "fgd-learning" (fgd-packed whose typical shapes are those placed so far, not the trace's:
/// it reads no pod before it arrives; its observer makes it one scheduler's); nullopt and
/// `error` naming them all for another name.
std::optional<Policy> trace_policy(const std::string& name, const TracePolicyInputs& inputs,
                                   std::string& error);

/// The names trace_policy() knows, in the paper's table order, the improvement last.
const std::vector<std::string>& trace_policy_names();

}  // namespace unisched::policy
