// Accelerators as the world names them: a type is a Kubernetes extended resource name
// ("nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "google.com/tpu") or a short kind ("GPU"); a link
// has a generation ("NVLink-4", "PCIe-Gen5"); a model is matched across vendors' spellings.
//
// The model rule: a name is read as lowercase tokens split at '-', '_', '.', ' ' and '/' (a MIG
// profile such as "1g.5gb" stays whole). Vendor and brand tokens (nvidia, tesla, amd, instinct,
// intel, habana) say nothing. A token of digits and a memory unit ("80gb", "192g") is memory, and
// so is a trailing M and digits on a model token (Alibaba's "V100M16": a V100 of 16 GB). "mig"
// and the profile after it, a vGPU profile ("4q", "8a", "2b", "1c") and an AMD compute partition
// ("cpx", "dpx", "qpx", "tpx"; "spx" is the whole GPU) make a partition: a MIG slice, a vGPU or a
// partition is its own model. A wanted name matches a device's model when each of its
// remaining tokens is one of the device's, its memory (if any) is the device's, and the two
// partitions are the same. So "A100" matches "NVIDIA-A100-SXM4-80GB" and "A100-SXM4-40GB" but not
// "A10" or "A100-SXM4-40GB-MIG-1g.5gb"; "V100" matches "V100M16" and "V100M32"; "V100M16" only
// the first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/expected.hpp"
#include "model/krm_common.hpp"

namespace unisched::model {

/// What an accelerator's `type` says: the kind of device and, when written as a Kubernetes
/// extended resource name, that name. A short kind ("GPU") has no resource: any vendor's.
struct AcceleratorKind {
  AcceleratorType type = AcceleratorType::GPU;
  std::string resource;  ///< e.g. "nvidia.com/gpu"; empty for a short kind
};

/// `text` read as an accelerator type, or why it is not one (Kubernetes' words where it has
/// them). The kind of a resource name is derived where it is known (nvidia.com/gpu and MIG
/// profiles, amd.com/gpu, intel.com/gpu: GPU; habana.ai/gaudi, aws.amazon.com/neuron: NPU;
/// google.com/tpu: TPU; names with "fpga": FPGA); any other valid name is of kind Other.
Expected<AcceleratorKind, std::string> parse_accelerator_type(std::string_view text);

/// How `kind` is written: its resource name, or its short kind.
std::string accelerator_type_text(const AcceleratorKind& kind);

/// The newest generation a link may state ("NVLink-99"); two digits are written.
inline constexpr int32_t kMaxLinkGeneration = 99;

/// A link between the devices of a node, with its generation when stated (0: not stated).
struct Link {
  Interconnect kind = Interconnect::PCIe;
  int32_t generation = 0;
};

/// `text` read as a link: "PCIe", "PCIe-Gen5", "NVLink", "NVLink-4", "NVSwitch", "NVSwitch-3",
/// "xGMI" (or "XGMI"), "xGMI-3", "ICI", "ICI-4". With `minimum` (requests), "NVLink>=4" is
/// accepted too; a generation in a request is always a minimum.
Expected<Link, std::string> parse_link(std::string_view text, bool minimum = false);

/// "NVLink-4", "PCIe-Gen5", "xGMI", ...
std::string link_text(const Link& link);

/// Whether devices linked by `device` serve a request for `required`: the kind satisfies it
/// (interconnect_satisfies) and, when `required` states a generation, `device` states one at
/// least as new.
bool link_satisfies(const Link& device, const Link& required);

/// Whether a device of model `device_model` is one of `wanted` (the rule above).
bool model_matches(std::string_view wanted, std::string_view device_model);

}  // namespace unisched::model
