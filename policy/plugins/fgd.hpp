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

}  // namespace unisched::policy
