#include "model/decimal_number.hpp"

#include <limits>

namespace unisched::model {
namespace {

std::string unit_list(const UnitScale* units, size_t unit_count) {
  std::string names;
  for (size_t i = 0; i < unit_count; ++i) {
    names += (i == 0 ? "" : ", ") + std::string(units[i].name);
  }
  return names;
}

}  // namespace

Expected<ScaledNumber, std::string> parse_scaled_number(std::string_view text,
                                                        const UnitScale* units, size_t unit_count,
                                                        std::string_view what) {
  size_t pos = 0;
  while (pos < text.size() && ((text[pos] >= '0' && text[pos] <= '9') || text[pos] == '.')) {
    ++pos;
  }
  const std::string_view number = text.substr(0, pos);
  const std::string_view unit = text.substr(pos);
  const size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  if (whole.empty() || (dot != std::string_view::npos && fraction.empty()) ||
      fraction.find('.') != std::string_view::npos) {
    return std::string(what) + " must be a number followed by a unit (" +
           unit_list(units, unit_count) + "), e.g. \"1.5" + std::string(units[0].name) + "\"";
  }
  const UnitScale* match = nullptr;
  for (size_t i = 0; i < unit_count && match == nullptr; ++i) {
    if (unit == units[i].name) {
      match = &units[i];
    }
  }
  if (match == nullptr) {
    return "unknown " + std::string(what) + " unit \"" + std::string(unit) +
           "\": expected one of " + unit_list(units, unit_count);
  }
  // value = whole * scale + fraction * scale / 10^len(fraction), exactly.
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  const std::string too_large = std::string(what) + " is too large";
  uint64_t total = 0;
  for (char c : whole) {
    const auto digit = static_cast<uint64_t>(c - '0');
    if (total > (kMax - digit) / 10) {
      return too_large;
    }
    total = total * 10 + digit;
  }
  if (total != 0 && match->scale > kMax / total) {
    return too_large;
  }
  total *= match->scale;
  uint64_t remaining_scale = match->scale;
  for (size_t i = 0; i < fraction.size(); ++i) {
    if (remaining_scale == 1) {
      if (fraction.find_first_not_of('0', i) != std::string_view::npos) {
        return std::string(what) + " \"" + std::string(text) + "\" is not a whole number of " +
               std::string(units[unit_count - 1].name);
      }
      break;
    }
    remaining_scale /= 10;
    const auto part = static_cast<uint64_t>(fraction[i] - '0') * remaining_scale;
    if (part > kMax - total) {
      return too_large;
    }
    total += part;
  }
  return ScaledNumber{total};
}

std::string format_scaled_number(uint64_t base_units, const UnitScale* units, size_t unit_count) {
  const UnitScale* best = nullptr;
  for (size_t i = 0; i < unit_count; ++i) {
    // Zero prints in the base unit ("0bps"), not the largest one.
    const bool fits = base_units == 0 ? units[i].scale == 1 : base_units % units[i].scale == 0;
    if (fits && (best == nullptr || units[i].scale > best->scale)) {
      best = &units[i];
    }
  }
  // The base unit (scale 1) always divides, so `best` is set for well-formed unit tables.
  return std::to_string(base_units / best->scale) + std::string(best->name);
}

}  // namespace unisched::model
