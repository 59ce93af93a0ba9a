// A request's `spec.template`: the Kubernetes PodTemplateSpec of what each replica runs, kept as
// compact JSON for the adapters that create workloads (Kubernetes); others ignore it. unisched
// checks only what it relies on (spec.containers: a non-empty list of objects, each named) and
// leaves the rest to the cluster's API server.
#pragma once

#include <string>
#include <string_view>

#include "model/document_writer.hpp"
#include "model/yaml_reader.hpp"

namespace unisched::model {

/// The template at `path` as compact JSON (YAML core-schema types: quoted scalars stay strings),
/// with its problems recorded in `context`; empty when it is unusable.
std::string pod_template_json(const YAML::Node& node, const FieldPath& path,
                              DecodeContext& context);

/// Writes a template's JSON back as a document value.
void write_pod_template(std::string_view json, DocumentWriter& out);

}  // namespace unisched::model
