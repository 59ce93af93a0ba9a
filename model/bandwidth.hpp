// Bandwidth: network throughput such as "40Gbps" or "1.6Tbps", kept exactly in bits per second.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/expected.hpp"

namespace unisched::model {

class Bandwidth {
 public:
  Bandwidth() = default;
  static Bandwidth from_bits_per_second(uint64_t bps) { return Bandwidth(bps); }

  /// Parses "<number><unit>" with unit bps, Kbps (or kbps), Mbps, Gbps, Tbps or Pbps (powers of
  /// 1000, as network rates are quoted) and an optional fraction that must come out to whole
  /// bits per second. On failure the error is a reason fit for a user.
  static Expected<Bandwidth, std::string> parse(std::string_view text);

  /// The largest unit that keeps the number whole: "1.6Tbps" prints "1600Gbps".
  std::string to_string() const;

  uint64_t bits_per_second() const { return bps_; }
  friend bool operator==(Bandwidth a, Bandwidth b) { return a.bps_ == b.bps_; }
  friend bool operator<(Bandwidth a, Bandwidth b) { return a.bps_ < b.bps_; }

 private:
  explicit Bandwidth(uint64_t bps) : bps_(bps) {}
  uint64_t bps_ = 0;
};

}  // namespace unisched::model
