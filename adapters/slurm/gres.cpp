#include "adapters/slurm/gres.hpp"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include <absl/strings/string_view.h>

#include <algorithm>

namespace unisched::adapters::slurm {
namespace {

/// The entries of a list, split at commas outside parentheses ("gpu:a100:3(IDX:0,2-3),...").
std::vector<absl::string_view> top_level_entries(absl::string_view text) {
  std::vector<absl::string_view> entries;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      entries.push_back(text.substr(start, i - start));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return entries;
}

absl::Status entry_error(absl::string_view entry, absl::string_view why) {
  return absl::InvalidArgumentError("GRES \"" + std::string(entry) + "\": " + std::string(why));
}

/// The part in parentheses: "IDX:0-1" gives the indexes in use; anything else ("S:0-1", the
/// sockets a device is near) says nothing the view holds.
absl::Status read_annotation(absl::string_view entry, absl::string_view annotation,
                             GresEntry& out) {
  const size_t at = annotation.find("IDX:");
  if (at == absl::string_view::npos) {
    return absl::OkStatus();
  }
  const absl::string_view list = annotation.substr(at + 4);
  auto indexes = parse_index_list(std::string_view(list.data(), list.size()));
  if (!indexes.ok()) {
    return entry_error(entry, indexes.status().message());
  }
  out.indexes = std::move(*indexes);
  return absl::OkStatus();
}

absl::StatusOr<GresEntry> parse_entry(absl::string_view entry) {
  absl::string_view head = entry;
  GresEntry out;
  if (const size_t open = entry.find('('); open != absl::string_view::npos) {
    if (entry.back() != ')') {
      return entry_error(entry, "an unclosed parenthesis");
    }
    head = entry.substr(0, open);
    if (auto status = read_annotation(entry, entry.substr(open + 1, entry.size() - open - 2), out);
        !status.ok()) {
      return status;
    }
  }
  const std::vector<absl::string_view> fields = absl::StrSplit(head, ':');
  if (fields.empty() || fields[0].empty() || fields.size() > 3) {
    return entry_error(entry, "expected NAME[:TYPE][:COUNT]");
  }
  out.name = std::string(fields[0]);
  out.count = 1;
  if (fields.size() >= 2) {
    // NAME:COUNT or NAME:TYPE, or NAME:TYPE:COUNT.
    const bool last_is_count = absl::SimpleAtoi(fields.back(), &out.count);
    if (fields.size() == 3 && !last_is_count) {
      return entry_error(entry, "the count is not a number");
    }
    if (!last_is_count) {
      out.count = 1;
    }
    if (fields.size() == 3 || !last_is_count) {
      out.type = std::string(fields[1]);
    }
  }
  if (out.count < 0) {
    return entry_error(entry, "a negative count");
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<int32_t>> parse_index_list(std::string_view whole) {
  const absl::string_view text(whole.data(), whole.size());
  std::vector<int32_t> indexes;
  if (text == "N/A" || text.empty()) {
    return indexes;
  }
  for (absl::string_view range : absl::StrSplit(text, ',')) {
    const std::vector<absl::string_view> bounds = absl::StrSplit(range, '-');
    int32_t first = 0;
    int32_t last = 0;
    if (bounds.size() > 2 || !absl::SimpleAtoi(bounds[0], &first) ||
        !absl::SimpleAtoi(bounds.back(), &last) || first < 0 || last < first || last > 4095) {
      return absl::InvalidArgumentError("index range \"" + std::string(range) +
                                        "\": expected N or N-M with 0 <= N <= M < 4096");
    }
    for (int32_t i = first; i <= last; ++i) {
      indexes.push_back(i);
    }
  }
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
  return indexes;
}

absl::StatusOr<std::vector<GresEntry>> parse_gres(std::string_view whole) {
  const absl::string_view text(whole.data(), whole.size());
  std::vector<GresEntry> entries;
  if (text.empty() || text == "(null)" || text == "N/A") {
    return entries;
  }
  for (absl::string_view entry : top_level_entries(text)) {
    auto parsed = parse_entry(entry);
    if (!parsed.ok()) {
      return parsed.status();
    }
    entries.push_back(std::move(*parsed));
  }
  return entries;
}

}  // namespace unisched::adapters::slurm
