// Small clusters for policy tests.
#pragma once

#include <boost/test/unit_test.hpp>
#include <deque>

#include "model/manifest.hpp"
#include "policy/framework.hpp"

namespace unisched::testing {

/// A GPU of `model`, linked to the devices of its `group` by `link`, `allocated_milli` in use.
inline model::Device gpu_device(const std::string& model_name, int64_t memory_bytes, int32_t group,
                                model::Interconnect link, int32_t allocated_milli = 0) {
  model::Device device;
  device.type = model::AcceleratorType::GPU;
  device.model = model_name;
  device.memory_bytes = memory_bytes;
  device.topology_group = group;
  device.interconnect = link;
  device.allocated_milli = allocated_milli;
  return device;
}

inline model::NodeState node(const std::string& name, int64_t cpu_milli, int64_t memory_gib,
                             int devices = 0,
                             model::Interconnect link = model::Interconnect::NVLink,
                             const std::string& device_model = "A100", int64_t device_gib = 80) {
  model::NodeState n;
  n.name = name;
  n.allocatable_cpu_milli = cpu_milli;
  n.allocatable_memory_bytes = memory_gib << 30;
  n.max_pods = 110;
  for (int i = 0; i < devices; ++i) {
    n.devices.push_back(gpu_device(device_model, device_gib << 30,
                                   link == model::Interconnect::PCIe ? i : 0, link));
  }
  return n;
}

/// Clusters that outlive the candidates pointing into them.
struct Fleet {
  std::deque<policy::ClusterInfo> infos;
  std::deque<model::ClusterView> views;
  std::vector<policy::ClusterCandidate> candidates;

  model::ClusterView& add(const std::string& id, const std::string& region,
                          std::vector<model::NodeState> nodes, bool healthy = true) {
    infos.push_back({id, region, region + "-a", model::MachineType::VirtualMachine, healthy});
    views.emplace_back();
    std::vector<model::NodeChange> changes;
    for (auto& n : nodes) {
      changes.push_back({model::NodeChangeKind::Add, std::move(n)});
    }
    BOOST_TEST_REQUIRE(!views.back().apply(changes).has_value());
    candidates.push_back({&infos.back(), &views.back()});
    return views.back();
  }
};

/// A validated request from the spec part of a manifest (indented by two spaces).
inline model::SchedulingRequestSpec request(const std::string& spec) {
  const auto decoded = model::decode_manifest(
      {"apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: r\n"
       "spec:\n" +
           spec,
       1});
  const std::string first_error = decoded.errors.empty() ? "" : decoded.errors[0].to_string();
  BOOST_TEST_REQUIRE(decoded.manifest.has_value(), first_error);
  return std::get<model::SchedulingRequest>(*decoded.manifest).spec;
}

}  // namespace unisched::testing
