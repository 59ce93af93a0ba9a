// Per-cluster identity: which token an agent must present to register a cluster. The file has
// one "clusterID token" pair per line; blank lines and lines starting with '#' are skipped.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace unisched::runtime {

struct ClusterTokens {
  std::map<std::string, std::string> by_cluster;
  std::vector<std::string> problems;  ///< "FILE:LINE: reason", one per bad line
};

/// Parses the text of a tokens file named `file` (used in messages).
ClusterTokens parse_cluster_tokens(std::string_view text, const std::string& file);

}  // namespace unisched::runtime
