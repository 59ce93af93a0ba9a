#include "model/request_attempt.hpp"

#include <charconv>

namespace unisched::model {

std::string attempt_key(const std::string& request, uint32_t attempt) {
  return attempt == 0 ? request : request + "~" + std::to_string(attempt);
}

RequestAttempt parse_attempt_key(std::string_view key) {
  const size_t tilde = key.rfind('~');
  if (tilde == std::string_view::npos || tilde == 0 || tilde + 1 == key.size()) {
    return {std::string(key), 0};
  }
  uint32_t attempt = 0;
  const char* first = key.data() + tilde + 1;
  const char* last = key.data() + key.size();
  const auto [end, error] = std::from_chars(first, last, attempt);
  if (error != std::errc() || end != last || attempt == 0 || *first == '0') {
    return {std::string(key), 0};
  }
  return {std::string(key.substr(0, tilde)), attempt};
}

std::string attempt_of_placement(const std::string& placement_id) {
  return placement_id.substr(0, placement_id.find('/'));
}

std::string request_of_placement(const std::string& placement_id) {
  return parse_attempt_key(attempt_of_placement(placement_id)).request;
}

}  // namespace unisched::model
