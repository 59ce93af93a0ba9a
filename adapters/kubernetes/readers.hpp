// One Node or Pod object read from its JSON element (internal to the Kubernetes adapter).
#pragma once

#include <string>

#include "adapters/kubernetes/json_access.hpp"
#include "adapters/kubernetes/kube_objects.hpp"

namespace unisched::adapters::kubernetes {

/// The node, or why it cannot be used (naming the field).
model::Expected<NodeReading, std::string> read_node(Element object);

/// The pod, or why it cannot be used (naming the field).
model::Expected<PodReading, std::string> read_pod(Element object);

/// An amount of `resource` as unisched counts it: millicores for cpu, bytes for memory, units
/// otherwise (rounded up, as Kubernetes rounds requests); nullopt when it is no quantity or too
/// large.
std::optional<int64_t> amount_of(std::string_view resource, const std::string& quantity);

}  // namespace unisched::adapters::kubernetes
