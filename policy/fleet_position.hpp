// Which cluster of a fleet holds a position drawn among all its nodes.
#pragma once

#include <absl/types/span.h>

#include <cstddef>

namespace unisched::policy {

/// The index of the cluster holding fleet position `at` (< ends.back()), where `ends` are the
/// clusters' running node totals (cluster i holds [ends[i-1], ends[i])): the first whose total
/// passes `at`, as std::upper_bound finds it.
size_t cluster_at(absl::Span<const size_t> ends, size_t at);

}  // namespace unisched::policy
