// Slurm's GRES strings (adapters/slurm/gres) as slurmctld reports them for a node: any text is
// either refused with a reason or read into entries with ascending, non-negative indexes.
#include "adapters/slurm/gres.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace slurm = unisched::adapters::slurm;

namespace {

bool ascending(const std::vector<int32_t>& indexes) {
  for (size_t i = 0; i < indexes.size(); ++i) {
    if (indexes[i] < 0 || (i > 0 && indexes[i - 1] >= indexes[i]))
      return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = unisched::fuzz::as_text(data, size);
  const auto entries = slurm::parse_gres(text);
  if (entries.ok()) {
    for (const auto& entry : *entries) {
      unisched::fuzz::check(!entry.name.empty() && entry.count >= 0,
                            "an entry has a name and a count", std::string(text));
      unisched::fuzz::check(ascending(entry.indexes), "an entry's indexes ascend",
                            std::string(text));
    }
  } else {
    unisched::fuzz::check(!entries.status().message().empty(), "a refusal gives its reason");
  }
  const auto indexes = slurm::parse_index_list(text);
  if (indexes.ok()) {
    unisched::fuzz::check(ascending(*indexes), "an index list ascends", std::string(text));
  }
  return 0;
}
