// Slurm's generic resources (GRES) as Slurm prints them for a node: configured ("gpu:a100:4",
// "gpu:a100:4(S:0-1),gpu:v100:2", "gpu:2") and in use ("gpu:a100:2(IDX:0-1)",
// "gpu:v100:0(IDX:N/A)", "gpu:a100:3(IDX:0,2-3)"). Plain C++: no Slurm include.
#pragma once

#include <absl/status/statusor.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace unisched::adapters::slurm {

struct GresEntry {
  std::string name;              ///< "gpu"
  std::string type;              ///< "a100"; empty when the GRES has no type
  int64_t count = 0;             ///< configured, or in use
  std::vector<int32_t> indexes;  ///< in use: the device indexes (IDX:...), ascending
};

/// `text` read as a comma-separated GRES list; empty for "", "(null)" and "N/A". An error
/// names the entry and what is wrong with it.
absl::StatusOr<std::vector<GresEntry>> parse_gres(std::string_view text);

/// "0-1", "0,2-3", "N/A" read as ascending indexes.
absl::StatusOr<std::vector<int32_t>> parse_index_list(std::string_view text);

}  // namespace unisched::adapters::slurm
