// Writes metrics in Prometheus' text exposition format (version 0.0.4): each family's # HELP and
// # TYPE lines, then its samples, label values escaped as the format says.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace unisched::runtime {

class PrometheusText {
 public:
  using Labels = std::vector<std::pair<std::string, std::string>>;

  /// Starts a family; `type` is "counter", "gauge" or "histogram". Its samples follow.
  void family(std::string_view name, std::string_view type, std::string_view help);
  /// One sample of the family last started (`name` is the family's, or for a histogram its
  /// _bucket, _sum or _count).
  void sample(std::string_view name, const Labels& labels, double value);
  /// A histogram's samples: `buckets` counts per bound of `bounds` (not cumulative), the last
  /// for above every bound; written cumulative with le="+Inf", then _sum and _count.
  void histogram(std::string_view name, const Labels& labels, const std::vector<uint64_t>& buckets,
                 const std::vector<double>& bounds, double sum);

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

/// The content type of the text format, for the HTTP reply.
inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace unisched::runtime
