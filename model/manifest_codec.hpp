// Decoders and encoders of each kind, between strict YAML reading and the model types.
// Internal to the manifest library: callers use manifest.hpp.
#pragma once

#include "model/cluster_profile.hpp"
#include "model/document_writer.hpp"
#include "model/scheduling_quota.hpp"
#include "model/scheduling_request.hpp"
#include "model/yaml_reader.hpp"

namespace unisched::model {

ObjectMeta decode_metadata(YamlObject& metadata);
void encode_metadata(const ObjectMeta& metadata, DocumentWriter& out);

AcceleratorSpec decode_accelerator(YamlObject& accelerator);
void encode_accelerator(const AcceleratorSpec& accelerator, DocumentWriter& out);

void encode_string_map(std::string_view key, const std::map<std::string, std::string>& map,
                       DocumentWriter& out);
void encode_strings(std::string_view key, const std::vector<std::string>& values,
                    DocumentWriter& out);

/// Reads metadata and spec of a document whose apiVersion and kind were already read.
ClusterResourceProfile decode_profile(YamlObject& document);
void encode_profile(const ClusterResourceProfile& profile, DocumentWriter& out);

SchedulingRequest decode_request(YamlObject& document);
void encode_request(const SchedulingRequest& request, DocumentWriter& out);

SchedulingQuota decode_quota(YamlObject& document);
void encode_quota(const SchedulingQuota& quota, DocumentWriter& out);

}  // namespace unisched::model
