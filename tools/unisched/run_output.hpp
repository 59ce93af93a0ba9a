// What `unisched run` prints: a progress line every second, and at the end the table of
// clusters and the workload's account (or one JSON object).
#pragma once

#include <cstdio>

#include "runtime/single_node.hpp"

namespace unisched::cli {

/// One line: cluster health, deltas, and the backlog (waiting requests, the oldest one's age,
/// decisions per second).
void log_progress(const runtime::RunProgress& progress);

/// The summary table: clusters, accelerator use, every request accounted for.
void print_table(const runtime::RunReport& report, std::FILE* out);

/// The summary as one JSON object on stdout.
void print_json(const runtime::RunReport& report, const runtime::RunOptions& options);

}  // namespace unisched::cli
