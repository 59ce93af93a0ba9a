// FGD, the fragmentation-aware policy of "Beware of Fragmentation" (ATC'23): place a replica on
// the node, and a share on the device, where the fragmentation (policy/fragmentation.hpp) the
// typical workload sees grows least.
#pragma once

#include <vector>

#include "policy/fragmentation.hpp"
#include "policy/framework.hpp"

namespace unisched::policy {

/// The FGD policy for a workload of these typical shapes: the built-in filters, the FGD scorer,
/// and FGD's choice of device for shares. With `whole_scores`, node and device scores are cut to
/// whole numbers, as the paper's simulator scores them (see Policy::whole_scores).
Policy fgd_policy(std::vector<PodShape> typical_shapes, bool whole_scores);

/// FGD whose typical shapes are those of the replicas that arrived at its scheduler so far (it
/// learns them from each request it decides, placed or not, and knows nothing of the workload
/// to come): the first request is scored knowing only itself. Its observer makes the policy
/// one scheduler's (see PlacementObserver).
Policy fgd_learning_policy(bool whole_scores);

/// `policy` with unisched's tie-breaks for FGD: among nodes whose whole-number scores tie, the
/// one with more of its GPU in use, then a fixed hash of the node name (fgd-packed's ties).
Policy with_packed_ties(Policy policy);

/// The learning FGD as unisched runs it (preset "fgd", trace policy "fgd-learning"): whole
/// scores and with_packed_ties() ties. One scheduler's, as fgd_learning_policy().
Policy fgd_learning_preset();

}  // namespace unisched::policy
