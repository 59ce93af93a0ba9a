// Types shared by every kind in scheduling.cluster.io/v1: object metadata, the enumerations and
// their spellings, and the accelerator description.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "model/quantity.hpp"

namespace unisched::model {

inline constexpr std::string_view kApiVersion = "scheduling.cluster.io/v1";

struct ObjectMeta {
  std::string name;                                ///< required, DNS-1123 subdomain
  std::map<std::string, std::string> labels;       ///< Kubernetes label rules
  std::map<std::string, std::string> annotations;  ///< free-form; keys follow label-key rules
};

/// The kind of device an accelerator entry counts (Other: a vendor resource of a kind not known
/// here; it matches only requests for that resource).
enum class AcceleratorType : uint8_t { GPU, NPU, TPU, FPGA, Other };

/// How the devices of one node are connected to each other.
enum class Interconnect : uint8_t {
  PCIe,      ///< through the host's PCIe fabric only (the default)
  NVLink,    ///< NVIDIA NVLink bridges between devices
  NVSwitch,  ///< NVIDIA NVSwitch: every device linked to every other
  XGMI,      ///< AMD Infinity Fabric links (written xGMI)
  ICI,       ///< Google TPU inter-chip interconnect
};

/// What a cluster's nodes run on.
enum class MachineType { VirtualMachine, BareMetal };

/// The spelling of each value of an enumeration in manifests.
template <class Enum, size_t N>
using EnumSpellings = std::array<std::pair<Enum, std::string_view>, N>;

inline constexpr EnumSpellings<AcceleratorType, 4> kAcceleratorTypes = {{
    {AcceleratorType::GPU, "GPU"},
    {AcceleratorType::NPU, "NPU"},
    {AcceleratorType::TPU, "TPU"},
    {AcceleratorType::FPGA, "FPGA"},
}};
inline constexpr EnumSpellings<Interconnect, 5> kInterconnects = {{
    {Interconnect::PCIe, "PCIe"},
    {Interconnect::NVLink, "NVLink"},
    {Interconnect::NVSwitch, "NVSwitch"},
    {Interconnect::XGMI, "xGMI"},
    {Interconnect::ICI, "ICI"},
}};
inline constexpr EnumSpellings<MachineType, 2> kMachineTypes = {{
    {MachineType::VirtualMachine, "VirtualMachine"},
    {MachineType::BareMetal, "BareMetal"},
}};

template <class Enum, size_t N>
std::string_view spelling(const EnumSpellings<Enum, N>& spellings, Enum value) {
  for (const auto& [candidate, text] : spellings) {
    if (candidate == value) {
      return text;
    }
  }
  return {};
}

/// True when `interconnect` links devices at least as well as `required` (NVSwitch > NVLink >
/// PCIe; xGMI and ICI satisfy only themselves or PCIe).
bool interconnect_satisfies(Interconnect interconnect, Interconnect required);

/// A group of identical accelerators. In a profile's spec.accelerators `count` is the cluster's
/// total; in a node shape it is the count on each node.
struct AcceleratorSpec {
  AcceleratorType type = AcceleratorType::GPU;  ///< default GPU; derived from `resource`
  std::string resource;  ///< manifest `type` as a resource name ("nvidia.com/gpu"); empty: short
  std::string model;     ///< required, e.g. "NVIDIA-A100"
  int64_t count = 0;     ///< required, >= 1
  Interconnect topology = Interconnect::PCIe;  ///< default PCIe
  int32_t link_generation = 0;                 ///< "NVLink-4": 4; 0: not stated
  Quantity memory_per_device;                  ///< manifest field memoryPerGPU, required, > 0
};

}  // namespace unisched::model
