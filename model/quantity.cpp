#include "model/quantity.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>
#include <vector>

namespace unisched::model {
namespace {

constexpr int128_t kNanosPerUnit = 1'000'000'000;
constexpr int kNanoExponent = -9;
// Kubernetes caps binary-suffixed amounts at the largest int64.
constexpr uint128_t kMaxBinaryNanos =
    static_cast<uint128_t>(std::numeric_limits<int64_t>::max()) * kNanosPerUnit;
// Exponents beyond this behave alike (out of range, or rounded up to 1n); clamping keeps
// the shift arithmetic in range for absurd inputs such as "1e9223372036854775807".
constexpr int64_t kExponentClamp = int64_t{1} << 40;

constexpr std::array<const char*, 7> kBinarySuffixes = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

/// A quantity string split the way Kubernetes' scanner splits it.
struct Scanned {
  bool negative = false;
  std::string_view num = "0";  // integer digits, leading zeros stripped, "0" when none
  std::string_view denom;      // fraction digits
  std::string_view suffix;
};

/// What a suffix means: value = number * base^exponent.
struct Suffix {
  int base = 10;
  int64_t exponent = 0;
  QuantityFormat format = QuantityFormat::DecimalSI;
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

size_t digit_run(std::string_view text, size_t pos) {
  while (pos < text.size() && is_digit(text[pos])) {
    ++pos;
  }
  return pos;
}

Expected<Scanned, QuantityError> scan(std::string_view text) {
  Scanned out;
  size_t pos = 0;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    out.negative = text[pos] == '-';
    ++pos;
  }
  while (pos < text.size() && text[pos] == '0') {
    ++pos;
  }
  if (pos == text.size()) {
    return out;  // only zeros (or nothing) after the sign: zero
  }
  const size_t num_end = digit_run(text, pos);
  if (num_end > pos) {
    out.num = text.substr(pos, num_end - pos);
  }
  pos = num_end;
  if (pos < text.size() && text[pos] == '.') {
    const size_t denom_end = digit_run(text, pos + 1);
    out.denom = text.substr(pos + 1, denom_end - pos - 1);
    pos = denom_end;
  }
  // Suffix: letters that can form a suffix, then an optional signed exponent.
  const size_t suffix_start = pos;
  while (pos < text.size() &&
         std::string_view("eEinumkKMGTP").find(text[pos]) != std::string_view::npos) {
    ++pos;
  }
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    ++pos;
  }
  pos = digit_run(text, pos);
  if (pos != text.size()) {
    return QuantityError::FormatWrong;
  }
  out.suffix = text.substr(suffix_start);
  return out;
}

std::optional<Suffix> interpret(std::string_view suffix) {
  static constexpr std::array<std::pair<std::string_view, int>, 10> decimal = {{
      {"n", -9},
      {"u", -6},
      {"m", -3},
      {"", 0},
      {"k", 3},
      {"M", 6},
      {"G", 9},
      {"T", 12},
      {"P", 15},
      {"E", 18},
  }};
  for (const auto& [name, exponent] : decimal) {
    if (suffix == name) {
      return Suffix{10, exponent, QuantityFormat::DecimalSI};
    }
  }
  for (size_t power = 1; power < kBinarySuffixes.size(); ++power) {
    if (suffix == kBinarySuffixes[power]) {
      return Suffix{2, static_cast<int64_t>(power * 10), QuantityFormat::BinarySI};
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    if (digits[0] == '+') {
      digits.remove_prefix(1);  // from_chars takes '-' but not '+'
    }
    int64_t exponent = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
      return std::nullopt;
    }
    exponent = std::clamp(exponent, -kExponentClamp, kExponentClamp);
    return Suffix{10, exponent, QuantityFormat::DecimalExponent};
  }
  return std::nullopt;
}

void multiply_digits(std::string& digits, unsigned factor) {
  unsigned carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const unsigned product = static_cast<unsigned>(*it - '0') * factor + carry;
    *it = static_cast<char>('0' + product % 10);
    carry = product / 10;
  }
  for (; carry != 0; carry /= 10) {
    digits.insert(digits.begin(), static_cast<char>('0' + carry % 10));
  }
}

/// |value| in nano-units, rounded up (away from zero) to a whole nano-unit as Kubernetes does;
/// nullopt when it exceeds int128.
std::optional<uint128_t> magnitude_in_nanos(const Scanned& scanned, const Suffix& suffix) {
  std::string digits = std::string(scanned.num) + std::string(scanned.denom);
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) {
    return uint128_t{0};
  }
  const auto fraction_digits = static_cast<int64_t>(scanned.denom.size());
  int64_t shift = -kNanoExponent - fraction_digits;  // power of ten from `digits` to nanos
  if (suffix.base == 2) {
    for (int64_t power = 0; power < suffix.exponent; power += 10) {
      multiply_digits(digits, 1024);
    }
  } else {
    shift += suffix.exponent;
  }
  bool round_up = false;
  if (shift >= 0) {
    if (static_cast<int64_t>(digits.size()) + shift > 39) {
      return std::nullopt;
    }
    digits.append(static_cast<size_t>(shift), '0');
  } else if (-shift >= static_cast<int64_t>(digits.size())) {
    return uint128_t{1};  // a non-zero amount below 1n
  } else {
    const size_t keep = digits.size() - static_cast<size_t>(-shift);
    round_up = digits.find_first_not_of('0', keep) != std::string::npos;
    digits.resize(keep);
  }
  auto nanos = parse_decimal_digits(digits, static_cast<uint128_t>(kInt128Max));
  if (!nanos || (round_up && *nanos == static_cast<uint128_t>(kInt128Max))) {
    return std::nullopt;
  }
  return *nanos + (round_up ? 1 : 0);
}

/// Whether Kubernetes' int64 fast path accepts this input and keeps the string as its
/// canonical form (it does when the input already looks canonical, e.g. "1500m", "6Ki").
bool kubernetes_keeps_text(const Scanned& scanned, const Suffix& suffix) {
  const auto num_digits = static_cast<int64_t>(scanned.num.size());
  const auto fraction_digits = static_cast<int64_t>(scanned.denom.size());
  int64_t precision = 0;
  int64_t scale = 0;
  uint64_t multiplier = 1;
  if (suffix.format == QuantityFormat::BinarySI) {
    if (fraction_digits != 0) {
      return false;
    }
    multiplier = uint64_t{1} << suffix.exponent;
    precision = 15 - num_digits - suffix.exponent * 3 / 10 - 1;
  } else {
    precision = 18 - num_digits - fraction_digits;
    scale = suffix.exponent;
  }
  scale -= fraction_digits;
  if (precision < 0 || scale < kNanoExponent) {
    return false;
  }
  const std::string shifted = std::string(scanned.num) + std::string(scanned.denom);
  uint64_t value = 0;
  std::from_chars(shifted.data(), shifted.data() + shifted.size(), value);  // <= 18 digits
  if (value != 0 &&
      multiplier > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / value) {
    return false;
  }
  if (suffix.format == QuantityFormat::BinarySI) {
    return (value & 0x07) != 0;
  }
  const bool ends_in_000 =
      shifted.size() >= 3 && shifted.compare(shifted.size() - 3, 3, "000") == 0;
  return scale % 3 == 0 && !ends_in_000 && shifted[0] != '0';
}

}  // namespace

const char* describe(QuantityError error) {
  switch (error) {
    case QuantityError::FormatWrong:
      return "quantities must match the regular expression "
             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    case QuantityError::Suffix:
      return "unable to parse quantity's suffix";
    case QuantityError::OutOfRange:
      return "quantity is too large: unisched keeps quantities exactly up to about 1.7e29";
  }
  return "invalid quantity";
}

std::string quantity_suggestion(std::string_view text) {
  std::string compact;
  for (const char c : text) {
    if (c != ' ') {
      compact += c;
    }
  }
  // People write bytes as "B"; a quantity's suffix has no unit, and "m" would be milli.
  if (compact.size() > 1 && (compact.back() == 'B' || compact.back() == 'b')) {
    compact.pop_back();
  }
  const size_t digits = compact.find_first_not_of("0123456789.+-");
  std::vector<std::string> candidates;
  constexpr size_t npos = std::string::npos;
  if (digits == npos || digits == 0) {
    candidates.push_back(compact);
  } else {
    const std::string number = compact.substr(0, digits);
    const std::string prefix = compact.substr(digits);
    const bool binary_written = prefix.size() == 2 && (prefix[1] == 'i' || prefix[1] == 'I');
    const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(prefix[0])));
    if ((prefix.size() == 1 || binary_written) && std::string("KMGTPE").find(upper) != npos) {
      if (!binary_written) {
        candidates.push_back(number + (upper == 'K' ? 'k' : upper));
      }
      candidates.push_back(number + upper + "i");
    }
  }
  std::string suggestion;
  for (const std::string& candidate : candidates) {
    if (candidate != text && Quantity::parse(candidate)) {
      suggestion += (suggestion.empty() ? " (did you mean \"" : " or \"") + candidate + "\"";
    }
  }
  return suggestion.empty() ? suggestion : suggestion + "?)";
}

Expected<Quantity, QuantityError> Quantity::parse(std::string_view text) {
  if (text.empty()) {
    return QuantityError::FormatWrong;
  }
  const auto scanned = scan(text);
  if (!scanned) {
    return scanned.error();
  }
  const auto suffix = interpret(scanned->suffix);
  if (!suffix) {
    return QuantityError::Suffix;
  }
  auto magnitude = magnitude_in_nanos(*scanned, *suffix);
  if (!magnitude) {
    return QuantityError::OutOfRange;
  }
  QuantityFormat format = suffix->format;
  const bool capped = format == QuantityFormat::BinarySI && *magnitude > kMaxBinaryNanos;
  if (format == QuantityFormat::BinarySI) {
    magnitude = std::min(*magnitude, kMaxBinaryNanos);
    if (*magnitude != 0 && *magnitude < static_cast<uint128_t>(kNanosPerUnit)) {
      format = QuantityFormat::DecimalSI;  // as Kubernetes: a fraction of one prints decimal
    }
  }
  const auto nanos = static_cast<int128_t>(*magnitude);
  std::string kept = kubernetes_keeps_text(*scanned, *suffix) ? std::string(text) : std::string();
  Quantity quantity(scanned->negative ? -nanos : nanos, format, std::move(kept));
  if (capped) {
    quantity.capped_from_ = std::string(text);
  }
  return quantity;
}

Quantity Quantity::from_units(int64_t units, QuantityFormat format) {
  return Quantity(int128_t{units} * kNanosPerUnit, format, {});
}

Quantity Quantity::from_milli(int64_t milli) {
  return Quantity(int128_t{milli} * (kNanosPerUnit / 1000), QuantityFormat::DecimalSI, {});
}

std::optional<int64_t> Quantity::scaled_value(int scale) const {
  if (scale < kNanoExponent || scale > 18) {
    return std::nullopt;
  }
  uint128_t divisor = 1;
  for (int exponent = kNanoExponent; exponent < scale; ++exponent) {
    divisor *= 10;
  }
  const uint128_t magnitude =
      nanos_ < 0 ? uint128_t{0} - static_cast<uint128_t>(nanos_) : static_cast<uint128_t>(nanos_);
  const uint128_t scaled = magnitude / divisor + (magnitude % divisor != 0 ? 1 : 0);
  if (scaled > static_cast<uint128_t>(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  const auto result = static_cast<int64_t>(scaled);
  return nanos_ < 0 ? -result : result;
}

std::string Quantity::to_string() const {
  return kept_text_.empty() ? canonical_string() : kept_text_;
}

std::string Quantity::canonical_string() const {
  if (nanos_ == 0) {
    return "0";
  }
  const std::string sign = nanos_ < 0 ? "-" : "";
  uint128_t magnitude =
      nanos_ < 0 ? uint128_t{0} - static_cast<uint128_t>(nanos_) : static_cast<uint128_t>(nanos_);
  QuantityFormat format = format_;
  if (format == QuantityFormat::BinarySI) {
    // Below 1Ki, or not a whole number, binary suffixes would round: print decimal instead.
    if (magnitude < 1024 * static_cast<uint128_t>(kNanosPerUnit) ||
        magnitude % kNanosPerUnit != 0) {
      format = QuantityFormat::DecimalSI;
    } else {
      uint128_t units = magnitude / kNanosPerUnit;
      size_t power = 0;
      while (power + 1 < kBinarySuffixes.size() && units % 1024 == 0) {
        units /= 1024;
        ++power;
      }
      return sign + to_decimal(units) + kBinarySuffixes[power];
    }
  }
  int exponent = kNanoExponent;
  while (magnitude % 10 == 0) {
    magnitude /= 10;
    ++exponent;
  }
  // Lower the exponent to a multiple of three; the mantissa takes the difference.
  for (; exponent % 3 != 0; --exponent) {
    magnitude *= 10;
  }
  std::string suffix;
  if (format == QuantityFormat::DecimalSI && exponent <= 18) {
    static constexpr std::array<const char*, 10> by_thousands = {"n", "u", "m", "",  "k",
                                                                 "M", "G", "T", "P", "E"};
    suffix = by_thousands[static_cast<size_t>((exponent - kNanoExponent) / 3)];
  } else if (exponent != 0) {
    // DecimalExponent, or DecimalSI past "E" (Kubernetes falls back to "e" notation there).
    suffix = "e" + std::to_string(exponent);
  }
  return sign + to_decimal(magnitude) + suffix;
}

}  // namespace unisched::model
