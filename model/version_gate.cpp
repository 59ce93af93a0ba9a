#include "model/version_gate.hpp"

namespace unisched::model {

UpdateVerdict judge_update(const StreamPosition& held, uint64_t epoch, uint64_t base_version,
                           uint64_t version) {
  if (epoch == 0 || version != base_version + 1) {
    return UpdateVerdict::Malformed;
  }
  if (epoch < held.epoch) {
    return UpdateVerdict::Stale;
  }
  if (epoch != held.epoch) {
    // A first update from a fresh agent starts from nothing and can be applied as it is;
    // anything else from an unknown epoch needs the whole state.
    const bool fresh_start = held.epoch == 0 && held.version == 0 && base_version == 0;
    return fresh_start ? UpdateVerdict::Apply : UpdateVerdict::Gap;
  }
  if (version <= held.version) {
    return UpdateVerdict::Duplicate;
  }
  return base_version == held.version ? UpdateVerdict::Apply : UpdateVerdict::Gap;
}

UpdateVerdict judge_revision(uint64_t held_revision, uint64_t base_revision, uint64_t revision) {
  constexpr uint64_t kOneStream = 1;
  return judge_update({kOneStream, held_revision}, kOneStream, base_revision, revision);
}

bool snapshot_is_current(const StreamPosition& held, uint64_t epoch, uint64_t version) {
  return epoch > held.epoch || (epoch == held.epoch && version >= held.version);
}

}  // namespace unisched::model
