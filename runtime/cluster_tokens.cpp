#include "runtime/cluster_tokens.hpp"

#include <sstream>

#include "model/names.hpp"

namespace unisched::runtime {

ClusterTokens parse_cluster_tokens(std::string_view text, const std::string& file) {
  ClusterTokens tokens;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::istringstream fields(line);
    std::string cluster;
    std::string token;
    std::string extra;
    fields >> cluster >> token >> extra;
    if (cluster.empty() || cluster[0] == '#') {
      continue;
    }
    const std::string where = file + ":" + std::to_string(number) + ": ";
    if (token.empty() || !extra.empty()) {
      tokens.problems.push_back(where + "expected \"clusterID token\"");
    } else if (const std::string reason = model::check_dns1123_label(cluster); !reason.empty()) {
      tokens.problems.push_back(where + "clusterID \"" + cluster + "\": " + reason);
    } else if (token.size() < 16) {
      tokens.problems.push_back(where + "the token of " + cluster +
                                " is shorter than 16 characters");
    } else if (!tokens.by_cluster.emplace(cluster, token).second) {
      tokens.problems.push_back(where + "clusterID \"" + cluster + "\" is given twice");
    }
  }
  return tokens;
}

}  // namespace unisched::runtime
