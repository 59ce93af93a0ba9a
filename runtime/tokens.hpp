// Credentials for whoever joins the hub: which token an agent must present to register a
// cluster, and which a shard must present to host ClusterActors. A tokens file has one
// "ID token" pair per line; blank lines and lines starting with '#' are skipped. IDs are
// DNS-1123 labels, tokens at least 16 characters.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace unisched::runtime {

struct Tokens {
  std::map<std::string, std::string> by_id;
  std::vector<std::string> problems;  ///< "FILE:LINE: reason", one per bad line
};

/// Parses the text of a tokens file named `file`; `id_name` ("clusterID", "shardID") names the
/// first column in messages.
Tokens parse_tokens(std::string_view text, const std::string& file, const std::string& id_name);

/// Whether `given` is `expected`, in time that does not depend on where they differ.
bool token_matches(const std::string& expected, const std::string& given);

/// Why `tokens` (clusterID or shardID -> token) refuses `id` presenting `given`; empty when it
/// admits it. `what` names the joiner ("cluster", "shard").
std::string token_refusal(const std::map<std::string, std::string>& tokens, const std::string& what,
                          const std::string& id, const std::string& given);

}  // namespace unisched::runtime
