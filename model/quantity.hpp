// Quantity: an exact decimal amount parsed and printed exactly as Kubernetes' resource.Quantity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/expected.hpp"
#include "model/int128.hpp"

namespace unisched::model {

/// How a quantity prints, as in Kubernetes: chosen from the suffix it was written with.
enum class QuantityFormat {
  DecimalSI,        ///< "12M", "500m": powers of 1000.
  BinarySI,         ///< "12Mi": powers of 1024.
  DecimalExponent,  ///< "12e6": scientific notation.
};

/// Why a string is not a quantity.
enum class QuantityError {
  FormatWrong,  ///< Not of the shape number + suffix (Kubernetes' ErrFormatWrong).
  Suffix,       ///< The suffix is not a known one (Kubernetes' ErrSuffix).
  OutOfRange,   ///< Larger than unisched stores exactly (about 1.7e29); Kubernetes has no bound.
};

/// The message Kubernetes gives for `error` (OutOfRange is unisched's own).
const char* describe(QuantityError error);

/// For text that is not a quantity but looks like one written as people write sizes ("2GB",
/// "512 MiB", "4gb"): the quantities it could mean, as ` (did you mean "2G" or "2Gi"?)`; else "".
std::string quantity_suggestion(std::string_view text);

/// An exact amount in nano-units (10^-9) with the format it prints in. No floating point is
/// involved anywhere: parsing, rounding and printing are integer operations.
class Quantity {
 public:
  /// Zero, printed as "0".
  Quantity() = default;

  /// Parses `text` as Kubernetes' ParseQuantity does, including its rounding of tiny
  /// values up to 1n and its cap of binary-suffixed values at 2^63-1.
  static Expected<Quantity, QuantityError> parse(std::string_view text);

  /// `units` whole units printed in `format` (e.g. bytes in BinarySI).
  static Quantity from_units(int64_t units, QuantityFormat format = QuantityFormat::DecimalSI);

  /// `milli` thousandths of a unit, printed in DecimalSI (e.g. cpu millicores).
  static Quantity from_milli(int64_t milli);

  /// `nanos` billionths of a unit, e.g. a sum of other quantities' nanos().
  static Quantity from_nanos(int128_t nanos, QuantityFormat format = QuantityFormat::DecimalSI) {
    return Quantity(nanos, format, {});
  }

  /// The canonical string, as Kubernetes' Quantity.String() prints it.
  std::string to_string() const;

  /// The value in units of 10^scale (scale 0: units, -3: milli), rounded away from zero like
  /// Kubernetes' ScaledValue; nullopt when that does not fit in int64.
  std::optional<int64_t> scaled_value(int scale) const;
  std::optional<int64_t> value() const { return scaled_value(0); }
  std::optional<int64_t> milli_value() const { return scaled_value(-3); }

  /// The text as written when Kubernetes' cap replaced its amount (a binary-suffixed amount
  /// above 2^63-1 units, such as "9999999Ei"); empty otherwise. Where amounts must be exact,
  /// a capped one is too large, not the cap.
  const std::string& capped_from() const { return capped_from_; }

  int128_t nanos() const { return nanos_; }
  QuantityFormat format() const { return format_; }
  int sign() const { return nanos_ > 0 ? 1 : (nanos_ < 0 ? -1 : 0); }
  bool is_zero() const { return nanos_ == 0; }

  /// Equality and order compare the amounts only ("1Gi" equals "1073741824").
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nanos_ == b.nanos_; }
  friend bool operator!=(const Quantity& a, const Quantity& b) { return a.nanos_ != b.nanos_; }
  friend bool operator<(const Quantity& a, const Quantity& b) { return a.nanos_ < b.nanos_; }

 private:
  Quantity(int128_t nanos, QuantityFormat format, std::string kept_text)
      : nanos_(nanos), format_(format), kept_text_(std::move(kept_text)) {}

  std::string canonical_string() const;

  int128_t nanos_ = 0;
  QuantityFormat format_ = QuantityFormat::DecimalSI;
  // Kubernetes prints some inputs back verbatim when they are already in a canonical shape
  // ("1.500", "+1", "1e0"); kept here in that case so to_string() matches it exactly.
  std::string kept_text_;
  std::string capped_from_;
};

}  // namespace unisched::model
