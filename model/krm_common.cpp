#include "model/krm_common.hpp"

namespace unisched::model {

bool interconnect_satisfies(Interconnect interconnect, Interconnect required) {
  if (required == Interconnect::PCIe || interconnect == required) {
    return true;
  }
  return required == Interconnect::NVLink && interconnect == Interconnect::NVSwitch;
}

}  // namespace unisched::model
