// LatencyBound: the seed's network latency figures ("<1ms", "<=500us", "2ms"), exact in
// nanoseconds. A profile states how slow a cluster's network may be; a request states how slow
// it may tolerate; `satisfies` compares the two.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/expected.hpp"

namespace unisched::model {

class LatencyBound {
 public:
  /// How the figure was written; kept so the canonical form says what the author said.
  enum class Relation {
    Typical,  ///< "2ms": taken as an upper bound (at most 2ms).
    AtMost,   ///< "<=2ms"
    Below,    ///< "<2ms"
  };

  LatencyBound() = default;

  /// Parses an optional "<" or "<=" (spaces allowed after it), then a non-negative number and a
  /// unit: ns, us (or µs), ms or s. "<0ns" is refused: nothing is faster than zero.
  static Expected<LatencyBound, std::string> parse(std::string_view text);

  std::string to_string() const;

  /// The largest latency in nanoseconds this bound admits ("<1ms" admits 999999ns).
  int64_t max_nanoseconds() const { return relation_ == Relation::Below ? nanos_ - 1 : nanos_; }

  /// True when every latency this bound (a cluster's) admits is admitted by `required`.
  bool satisfies(const LatencyBound& required) const {
    return max_nanoseconds() <= required.max_nanoseconds();
  }

  Relation relation() const { return relation_; }
  int64_t nanoseconds() const { return nanos_; }

 private:
  LatencyBound(Relation relation, int64_t nanos) : relation_(relation), nanos_(nanos) {}
  Relation relation_ = Relation::Typical;
  int64_t nanos_ = 0;
};

}  // namespace unisched::model
