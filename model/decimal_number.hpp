// Exact parsing of "<digits>[.<digits>]<unit>" for the seed's non-Kubernetes units
// (bandwidth, latency): the number times the unit's integer scale, with no floating point.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/expected.hpp"

namespace unisched::model {

struct UnitScale {
  std::string_view name;
  uint64_t scale;  // base units per one of this unit
};

/// A parsed "<number><unit>": the amount in base units.
struct ScaledNumber {
  uint64_t base_units = 0;
};

/// Parses `text` as a non-negative decimal followed by one of `units` (tried in order, so list
/// longer names first). Fails with a user-facing reason when the shape is wrong, the unit is
/// unknown, the value does not come to a whole number of base units, or it overflows.
Expected<ScaledNumber, std::string> parse_scaled_number(std::string_view text,
                                                        const UnitScale* units, size_t unit_count,
                                                        std::string_view what);

/// Prints `base_units` with the largest unit (units ordered any way) that keeps it whole.
std::string format_scaled_number(uint64_t base_units, const UnitScale* units, size_t unit_count);

}  // namespace unisched::model
