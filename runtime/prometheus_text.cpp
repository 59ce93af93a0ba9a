#include "runtime/prometheus_text.hpp"

#include <cmath>
#include <cstdio>

namespace unisched::runtime {
namespace {

/// Backslash, double quote and line feed escaped, as label values must be.
std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

/// Whole numbers as integers (counters read best so), others with 9 significant digits.
std::string format_value(double value) {
  if (std::isinf(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  if (std::isnan(value)) {
    return "NaN";
  }
  char text[40];
  if (value == std::floor(value) && std::fabs(value) < 9.0e15) {
    std::snprintf(text, sizeof(text), "%.0f", value);
  } else {
    std::snprintf(text, sizeof(text), "%.9g", value);
  }
  return text;
}

}  // namespace

void PrometheusText::family(std::string_view name, std::string_view type, std::string_view help) {
  text_.append("# HELP ").append(name).append(" ");
  for (const char c : help) {  // help text escapes backslash and line feed only
    text_ += c == '\\' ? std::string("\\\\") : c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  text_.append("\n# TYPE ").append(name).append(" ").append(type).append("\n");
}

void PrometheusText::sample(std::string_view name, const Labels& labels, double value) {
  text_.append(name);
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      text_.append(i == 0 ? "" : ",").append(labels[i].first).append("=\"");
      text_.append(escape_label_value(labels[i].second)).append("\"");
    }
    text_ += '}';
  }
  text_.append(" ").append(format_value(value)).append("\n");
}

void PrometheusText::histogram(std::string_view name, const Labels& labels,
                               const std::vector<uint64_t>& buckets,
                               const std::vector<double>& bounds, double sum) {
  const std::string base(name);
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds.size(); ++i) {
    cumulative += i < buckets.size() ? buckets[i] : 0;
    Labels with_bound = labels;
    with_bound.emplace_back("le", i < bounds.size() ? format_value(bounds[i]) : "+Inf");
    sample(base + "_bucket", with_bound, static_cast<double>(cumulative));
  }
  sample(base + "_sum", labels, sum);
  sample(base + "_count", labels, static_cast<double>(cumulative));
}

}  // namespace unisched::runtime
