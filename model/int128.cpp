#include "model/int128.hpp"

#include <algorithm>
#include <limits>

namespace unisched::model {

int64_t saturated_int64(int128_t value) {
  constexpr int128_t kMost = std::numeric_limits<int64_t>::max();
  constexpr int128_t kLeast = std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(std::clamp(value, kLeast, kMost));
}

std::string to_decimal(uint128_t value) {
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(value % 10)));
    value /= 10;
  } while (value != 0);
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string to_decimal(int128_t value) {
  if (value >= 0) {
    return to_decimal(static_cast<uint128_t>(value));
  }
  // Negate in unsigned space so the most negative value does not overflow.
  return "-" + to_decimal(uint128_t{0} - static_cast<uint128_t>(value));
}

std::optional<uint128_t> parse_decimal_digits(std::string_view digits, uint128_t limit) {
  if (digits.empty()) {
    return std::nullopt;
  }
  uint128_t result = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    const auto digit = static_cast<unsigned>(c - '0');
    if (result > (limit - digit) / 10) {
      return std::nullopt;
    }
    result = result * 10 + digit;
  }
  return result;
}

}  // namespace unisched::model
