// Plain-text tables: a name column as wide as its longest entry, so that a long cluster ID
// (up to 63 characters) does not push the other columns out of line.
#pragma once

#include <algorithm>
#include <string>

namespace unisched::cli {

/// The width of a column headed `heading` holding `name(row)` for every row, at least `minimum`.
template <class Rows, class Name>
int name_column_width(const Rows& rows, Name name, const std::string& heading, int minimum = 22) {
  size_t width = std::max(heading.size(), static_cast<size_t>(minimum));
  for (const auto& row : rows) {
    width = std::max(width, name(row).size());
  }
  return static_cast<int>(width);
}

}  // namespace unisched::cli
