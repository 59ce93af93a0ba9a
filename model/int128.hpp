// 128-bit integers for exact quantity arithmetic: Kubernetes accepts values beyond int64
// (e.g. "9223372036854775808.1"), and nano-unit precision needs about 29 digits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace unisched::model {

__extension__ typedef __int128 int128_t;
__extension__ typedef unsigned __int128 uint128_t;

inline constexpr uint128_t kUint128Max = ~uint128_t{0};
inline constexpr int128_t kInt128Max = static_cast<int128_t>(kUint128Max >> 1);

/// `value` as an int64, the nearest one when it is beyond (a sum shown, or held, in 64 bits).
int64_t saturated_int64(int128_t value);

/// Decimal digits of `value`, without sign or leading zeros ("0" for zero).
std::string to_decimal(uint128_t value);

/// Signed decimal form of `value`.
std::string to_decimal(int128_t value);

/// Parses a run of decimal digits; nullopt if it is empty, has a non-digit, or exceeds `limit`.
std::optional<uint128_t> parse_decimal_digits(std::string_view digits, uint128_t limit);

}  // namespace unisched::model
