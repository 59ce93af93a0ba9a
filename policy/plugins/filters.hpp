// The built-in cluster filters.
#pragma once

#include "policy/framework.hpp"

namespace unisched::policy::plugins {

std::shared_ptr<const ClusterFilter> make_view_only_filter();
std::shared_ptr<const ClusterFilter> make_health_filter();
std::shared_ptr<const ClusterFilter> make_affinity_filter();
std::shared_ptr<const ClusterFilter> make_latency_filter();
std::shared_ptr<const ClusterFilter> make_storage_filter();
std::shared_ptr<const ClusterFilter> make_machine_type_filter();
std::shared_ptr<const ClusterFilter> make_resource_fit_filter();

}  // namespace unisched::policy::plugins
