// Kubernetes' rules for names and labels. Each check returns an empty string when the value is
// acceptable, or the reason (in Kubernetes' words) when it is not.
#pragma once

#include <string>
#include <string_view>

namespace unisched::model {

/// DNS-1123 label: at most 63 lowercase alphanumerics or '-', starting and ending alphanumeric.
std::string check_dns1123_label(std::string_view value);

/// A cluster id, wherever one enters (a profile's spec.clusterID, an agent's --cluster, a
/// registration or update over CAF or gRPC): a DNS-1123 label. One rule everywhere, so every
/// log, table and JSON document can print ids as they are.
inline std::string check_cluster_id(std::string_view value) {
  return check_dns1123_label(value);
}

/// `text` in the characters of a DNS-1123 label: letters lowercased, letters and digits kept,
/// every run of anything else one '-', none at either end, at most `max_length` characters.
/// ("arn:aws:eks:us-west-2:1:cluster/Prod" -> "arn-aws-eks-us-west-2-1-cluster-prod"). It may
/// still be empty; check it where it must be a label.
std::string dns1123_label_from(std::string_view text, size_t max_length = 63);

/// DNS-1123 subdomain: at most 253 characters of dot-separated DNS-1123 labels.
std::string check_dns1123_subdomain(std::string_view value);

/// A node's name wherever it enters the centre (an agent's snapshot or update, over any
/// transport): at most 253 characters of dot-separated parts, each at most 63 letters, digits,
/// '-' or '_', starting and ending with a letter or digit. RFC 1123 host names as Slurm keeps
/// them (case kept, '_' allowed); Kubernetes' own rule, a DNS-1123 subdomain, is stricter. Never a
/// control character, a space or anything a terminal or a log line would read as more.
std::string check_node_name(std::string_view value);

/// Label key: an optional DNS-1123 subdomain prefix and '/', then a name of at most 63
/// alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
std::string check_label_key(std::string_view value);

/// Label value: empty, or at most 63 characters shaped like a label key's name part.
std::string check_label_value(std::string_view value);

}  // namespace unisched::model
