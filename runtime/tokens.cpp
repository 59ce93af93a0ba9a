#include "runtime/tokens.hpp"

#include <openssl/crypto.h>

#include <sstream>

#include "model/names.hpp"

namespace unisched::runtime {

Tokens parse_tokens(std::string_view text, const std::string& file, const std::string& id_name) {
  Tokens tokens;
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::istringstream fields(line);
    std::string id;
    std::string token;
    std::string extra;
    fields >> id >> token >> extra;
    if (id.empty() || id[0] == '#') {
      continue;
    }
    const std::string where = file + ":" + std::to_string(number) + ": ";
    if (token.empty() || !extra.empty()) {
      tokens.problems.push_back(where + "expected \"" + id_name + " token\"");
    } else if (const std::string reason = model::check_dns1123_label(id); !reason.empty()) {
      tokens.problems.push_back(where + id_name + " \"" + id + "\": " + reason);
    } else if (token.size() < 16) {
      tokens.problems.push_back(where + "the token of " + id + " is shorter than 16 characters");
    } else if (!tokens.by_id.emplace(id, token).second) {
      tokens.problems.push_back(where + id_name + " \"" + id + "\" is given twice");
    }
  }
  return tokens;
}

bool token_matches(const std::string& expected, const std::string& given) {
  return expected.size() == given.size() &&
         CRYPTO_memcmp(expected.data(), given.data(), expected.size()) == 0;
}

std::string token_refusal(const std::map<std::string, std::string>& tokens, const std::string& what,
                          const std::string& id, const std::string& given) {
  const auto expected = tokens.find(id);
  if (expected == tokens.end()) {
    return "no token is configured for " + what + " \"" + id + "\"";
  }
  if (given.empty()) {
    return what + " \"" + id + "\" presented no token";
  }
  if (!token_matches(expected->second, given)) {
    return "wrong token for " + what + " \"" + id + "\"";
  }
  return {};
}

}  // namespace unisched::runtime
