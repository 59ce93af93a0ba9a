#include "model/latency.hpp"

#include <array>
#include <limits>

#include "model/decimal_number.hpp"

namespace unisched::model {
namespace {

// Smallest unit last, so a "not a whole number" error can name it.
constexpr std::array<UnitScale, 5> kUnits = {{
    {"s", 1'000'000'000},
    {"ms", 1'000'000},
    {"us", 1'000},
    {"\u00b5s", 1'000},
    {"ns", 1},
}};

}  // namespace

Expected<LatencyBound, std::string> LatencyBound::parse(std::string_view text) {
  Relation relation = Relation::Typical;
  if (text.substr(0, 2) == "<=") {
    relation = Relation::AtMost;
    text.remove_prefix(2);
  } else if (text.substr(0, 1) == "<") {
    relation = Relation::Below;
    text.remove_prefix(1);
  }
  while (!text.empty() && text.front() == ' ') {
    text.remove_prefix(1);
  }
  auto parsed = parse_scaled_number(text, kUnits.data(), kUnits.size(), "latency");
  if (!parsed) {
    return parsed.error();
  }
  if (parsed->base_units > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return std::string("latency is too large");
  }
  const auto nanos = static_cast<int64_t>(parsed->base_units);
  if (relation == Relation::Below && nanos == 0) {
    return std::string("latency \"<0\" admits nothing: use a positive bound");
  }
  return LatencyBound(relation, nanos);
}

std::string LatencyBound::to_string() const {
  const char* prefix =
      relation_ == Relation::Below ? "<" : (relation_ == Relation::AtMost ? "<=" : "");
  return prefix + format_scaled_number(static_cast<uint64_t>(nanos_), kUnits.data(), kUnits.size());
}

}  // namespace unisched::model
