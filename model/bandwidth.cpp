#include "model/bandwidth.hpp"

#include <array>

#include "model/decimal_number.hpp"

namespace unisched::model {
namespace {

// Smallest unit last, so a "finer than" error can name it.
constexpr std::array<UnitScale, 7> kUnits = {{
    {"Pbps", 1'000'000'000'000'000},
    {"Tbps", 1'000'000'000'000},
    {"Gbps", 1'000'000'000},
    {"Mbps", 1'000'000},
    {"Kbps", 1'000},
    {"kbps", 1'000},
    {"bps", 1},
}};

}  // namespace

Expected<Bandwidth, std::string> Bandwidth::parse(std::string_view text) {
  auto parsed = parse_scaled_number(text, kUnits.data(), kUnits.size(), "bandwidth");
  if (!parsed) {
    return parsed.error();
  }
  return Bandwidth(parsed->base_units);
}

std::string Bandwidth::to_string() const {
  // "kbps" is accepted on input; "Kbps" is the printed spelling (listed first wins ties).
  return format_scaled_number(bps_, kUnits.data(), kUnits.size());
}

}  // namespace unisched::model
