#include "model/accelerator_names.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "tests/json.hpp"
#include "tests/shared_data.hpp"
#include "tests/test_files.hpp"

using namespace unisched::model;
using unisched::testing::Json;
using unisched::testing::shared_path;
using unisched::testing::SharedFileAvailable;
using unisched::testing::vendored_path;

namespace {

AcceleratorKind kind_of(const std::string& text) {
  const auto kind = parse_accelerator_type(text);
  if (!kind.has_value()) {
    BOOST_FAIL(text << ": " << kind.error());
  }
  return kind.value();
}

std::string refusal_of_type(const std::string& text) {
  const auto kind = parse_accelerator_type(text);
  if (kind.has_value()) {
    BOOST_FAIL(text << " was accepted");
  }
  return kind.error();
}

/// Every name in `../shared/data/k8s-api` that Kubernetes or a device plugin wrote: the resource
/// names under capacity and allocatable maps, and the products GPU Feature Discovery and the
/// AMD device plugin label nodes with.
struct RealNames {
  std::set<std::string> resources;
  std::set<std::string> products;
};

bool is_resource_map(const std::string& key) {
  return key == "capacity" || key == "allocatable" || key == "capacity_allocatable" ||
         key.rfind("single_", 0) == 0 || key.rfind("mixed_", 0) == 0;
}

void collect(const Json& value, const std::string& key, RealNames& names) {
  if (value.is_object()) {
    for (const auto& [child_key, child] : value.items()) {
      if (is_resource_map(key) && child_key.find('/') != std::string::npos &&
          child_key.rfind("kubernetes.io/", 0) != 0) {
        names.resources.insert(child_key);
      }
      if ((child_key == "nvidia.com/gpu.product" || child_key == "amd.com/gpu.product-name") &&
          child.is_string()) {
        names.products.insert(child.get<std::string>());
      }
      collect(child, child_key, names);
    }
  } else if (value.is_array()) {
    for (const Json& child : value) {
      collect(child, key, names);
    }
  }
}

RealNames real_kubernetes_names() {
  RealNames names;
  for (const auto& entry : std::filesystem::directory_iterator(vendored_path("k8s-api"))) {
    const std::string path = entry.path().string();
    const bool lines = entry.path().extension() == ".ndjson";
    if (!lines && entry.path().extension() != ".json") {
      continue;
    }
    std::ifstream file(path);
    std::string line;
    const std::string whole = lines ? std::string() : unisched::testing::read_file(path);
    while (lines ? static_cast<bool>(std::getline(file, line)) : false) {
      collect(unisched::testing::parse_json(line), {}, names);
    }
    if (!lines) {
      collect(unisched::testing::parse_json(whole), {}, names);
    }
  }
  return names;
}

std::set<std::string> alibaba_models() {
  std::ifstream file(shared_path("data/alibaba-gpu-2023/openb_node_list_gpu_node.csv"));
  std::set<std::string> models;
  std::string line;
  std::getline(file, line);  // sn,cpu_milli,memory_mib,gpu,model
  while (std::getline(file, line)) {
    const std::string model = line.substr(line.rfind(',') + 1);
    if (!model.empty()) {
      models.insert(model);
    }
  }
  return models;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(accelerator_names)

BOOST_AUTO_TEST_CASE(extended_resource_names_give_their_kind) {
  BOOST_TEST((kind_of("nvidia.com/gpu").type == AcceleratorType::GPU));
  BOOST_TEST(kind_of("nvidia.com/gpu").resource == "nvidia.com/gpu");
  BOOST_TEST((kind_of("nvidia.com/mig-1g.10gb").type == AcceleratorType::GPU));
  BOOST_TEST((kind_of("amd.com/gpu").type == AcceleratorType::GPU));
  BOOST_TEST((kind_of("intel.com/gpu").type == AcceleratorType::GPU));
  BOOST_TEST((kind_of("gpu.intel.com/i915").type == AcceleratorType::Other));
  BOOST_TEST((kind_of("habana.ai/gaudi").type == AcceleratorType::NPU));
  BOOST_TEST((kind_of("aws.amazon.com/neuron").type == AcceleratorType::NPU));
  BOOST_TEST((kind_of("aws.amazon.com/neuroncore").type == AcceleratorType::NPU));
  BOOST_TEST((kind_of("google.com/tpu").type == AcceleratorType::TPU));
  BOOST_TEST((kind_of("xilinx.com/fpga-xilinx_u250").type == AcceleratorType::FPGA));
  BOOST_TEST((kind_of("example.com/widget").type == AcceleratorType::Other));
  // The short kinds stay, with no resource: any vendor's device of that kind.
  BOOST_TEST((kind_of("TPU").type == AcceleratorType::TPU));
  BOOST_TEST(kind_of("GPU").resource.empty());
  BOOST_TEST(accelerator_type_text(kind_of("GPU")) == "GPU");
  BOOST_TEST(accelerator_type_text(kind_of("habana.ai/gaudi")) == "habana.ai/gaudi");
}

BOOST_AUTO_TEST_CASE(names_outside_kubernetes_rules_are_refused_with_its_words) {
  BOOST_TEST(refusal_of_type("gpu").find("fully-qualified") != std::string::npos);
  BOOST_TEST(refusal_of_type("kubernetes.io/gpu").find("kubernetes.io") != std::string::npos);
  BOOST_TEST(refusal_of_type("node.kubernetes.io/gpu").find("kubernetes.io") != std::string::npos);
  BOOST_TEST(refusal_of_type("nvidia.com/").find("name part must be non-empty") !=
             std::string::npos);
  BOOST_TEST(refusal_of_type("nvidia.com/gpu!").find("name part must consist of") !=
             std::string::npos);
  BOOST_TEST(refusal_of_type("-nvidia.com/gpu").find("prefix part") != std::string::npos);
  BOOST_TEST(refusal_of_type("nvidia.com/" + std::string(64, 'g')).find("63") != std::string::npos);
  refusal_of_type("a/b/c");
  refusal_of_type("");
}

BOOST_AUTO_TEST_CASE(every_resource_name_kubernetes_wrote_is_accepted) {
  const RealNames names = real_kubernetes_names();
  // nvidia.com/gpu, the MIG profiles of the mixed strategy, amd.com/gpu and its partitions.
  BOOST_TEST(names.resources.count("nvidia.com/mig-3g.20gb") == 1u);
  BOOST_TEST(names.resources.count("amd.com/cpx_nps4") == 1u);
  for (const std::string& resource : names.resources) {
    const AcceleratorKind kind = kind_of(resource);
    BOOST_TEST((kind.type == AcceleratorType::GPU), resource);
    BOOST_TEST(kind.resource == resource);
  }
}

BOOST_AUTO_TEST_CASE(links_have_generations) {
  const auto link = [](const std::string& text, bool minimum = false) {
    const auto parsed = parse_link(text, minimum);
    if (!parsed.has_value()) {
      BOOST_FAIL(text << ": " << parsed.error());
    }
    return parsed.value();
  };
  BOOST_TEST((link("NVLink-4").kind == Interconnect::NVLink));
  BOOST_TEST(link("NVLink-4").generation == 4);
  BOOST_TEST(link("NVLink").generation == 0);
  BOOST_TEST((link("NVSwitch").kind == Interconnect::NVSwitch));
  BOOST_TEST((link("PCIe").kind == Interconnect::PCIe));
  BOOST_TEST(link("PCIe-Gen5").generation == 5);
  BOOST_TEST((link("xGMI").kind == Interconnect::XGMI));
  BOOST_TEST((link("XGMI").kind == Interconnect::XGMI));
  BOOST_TEST((link("ICI-4").kind == Interconnect::ICI));
  BOOST_TEST(link("NVLink>=4", true).generation == 4);
  for (const Link& each : {Link{Interconnect::NVLink, 4}, Link{Interconnect::PCIe, 5},
                           Link{Interconnect::XGMI, 0}, Link{Interconnect::ICI, 3}}) {
    const Link again = link(link_text(each));
    BOOST_TEST((again.kind == each.kind && again.generation == each.generation), link_text(each));
  }
  for (const char* bad : {"NVLink4", "NVLink-", "NVLink-0", "NVLink-x", "nvlink", "PCIe-5",
                          "PCIe-Gen", "NVLink>=4", "Infiniband", "NVLink-4 ", "NVLink-123"}) {
    const auto refused = parse_link(bad);
    BOOST_TEST(!refused.has_value(), bad);
    if (!refused.has_value()) {
      BOOST_TEST(refused.error().find("\"NVLink-<N>\"") != std::string::npos);
    }
  }
  BOOST_TEST(!parse_link("NVLink>=", true).has_value());
}

BOOST_AUTO_TEST_CASE(a_generation_asked_for_is_a_minimum) {
  const Link nvlink4{Interconnect::NVLink, 4};
  BOOST_TEST(link_satisfies(nvlink4, {Interconnect::NVLink, 3}));
  BOOST_TEST(link_satisfies(nvlink4, {Interconnect::NVLink, 4}));
  BOOST_TEST(!link_satisfies(nvlink4, {Interconnect::NVLink, 5}));
  BOOST_TEST(link_satisfies(nvlink4, {Interconnect::NVLink, 0}));
  BOOST_TEST(link_satisfies(nvlink4, {Interconnect::PCIe, 0}));
  // A link of unknown generation does not prove it is new enough.
  BOOST_TEST(!link_satisfies({Interconnect::NVLink, 0}, {Interconnect::NVLink, 4}));
  BOOST_TEST(!link_satisfies({Interconnect::PCIe, 5}, {Interconnect::NVLink, 0}));
  BOOST_TEST(!link_satisfies({Interconnect::XGMI, 3}, {Interconnect::ICI, 0}));
}

BOOST_AUTO_TEST_CASE(models_match_by_tokens_not_substrings) {
  BOOST_TEST(model_matches("A100", "NVIDIA-A100-SXM4-80GB"));
  BOOST_TEST(model_matches("A100", "A100-SXM4-40GB"));
  BOOST_TEST(model_matches("A100", "NVIDIA A100 80GB PCIe"));
  BOOST_TEST(!model_matches("A10", "A100-SXM4-40GB"));
  BOOST_TEST(!model_matches("A100", "A10"));
  BOOST_TEST(model_matches("NVIDIA-A10", "A10"));
  BOOST_TEST(model_matches("a100", "NVIDIA-A100-SXM4-80GB"));  // case does not matter
  // Memory, where stated, is part of the model.
  BOOST_TEST(model_matches("A100-80GB", "NVIDIA-A100-SXM4-80GB"));
  BOOST_TEST(!model_matches("A100-80GB", "A100-SXM4-40GB"));
  BOOST_TEST(model_matches("Tesla-V100-16GB", "V100M16"));
  BOOST_TEST(!model_matches("V100-SXM2", "V100M16"));  // a form factor the device does not state
  // A MIG slice and a vGPU profile are their own models.
  BOOST_TEST(!model_matches("A100", "A100-SXM4-40GB-MIG-1g.5gb"));
  BOOST_TEST(model_matches("A100-MIG-1g.5gb", "A100-SXM4-40GB-MIG-1g.5gb"));
  BOOST_TEST(!model_matches("A100-MIG-2g.10gb", "A100-SXM4-40GB-MIG-1g.5gb"));
  BOOST_TEST(!model_matches("A16", "NVIDIA-A16-4Q"));
  BOOST_TEST(model_matches("A16-4Q", "NVIDIA-A16-4Q"));
  BOOST_TEST(!model_matches("A16-8Q", "NVIDIA-A16-4Q"));
  BOOST_TEST(model_matches("MI300X", "AMD_Instinct_MI300X_OAM"));
  BOOST_TEST(!model_matches("MI300", "AMD_Instinct_MI300X_OAM"));
  BOOST_TEST(model_matches("MI300X-192GB", "AMD_Instinct_MI300X_OAM-192G"));
  BOOST_TEST(!model_matches("MI300X", "AMD_Instinct_MI300X_OAM-cpx_nps1"));  // an eighth of one
  BOOST_TEST(model_matches("MI300X", "AMD_Instinct_MI300X_OAM-spx_nps1"));   // the whole GPU
  BOOST_TEST(model_matches("MI300X-CPX", "AMD_Instinct_MI300X_OAM-cpx_nps4"));
  // A vendor word alone is no model.
  BOOST_TEST(!model_matches("NVIDIA", "NVIDIA-A100-SXM4-80GB"));
}

BOOST_AUTO_TEST_CASE(every_product_kubernetes_labels_is_its_own_model) {
  const RealNames names = real_kubernetes_names();
  const std::set<std::string> expected = {"A100-SXM4-40GB", "A100-SXM4-40GB-MIG-1g.5gb",
                                          "NVIDIA-A16-4Q", "AMD_Instinct_MI300X_OAM"};
  BOOST_TEST(std::includes(names.products.begin(), names.products.end(), expected.begin(),
                           expected.end()));
  for (const std::string& product : names.products) {
    BOOST_TEST(model_matches(product, product), product);
    for (const std::string& other : names.products) {
      if (other != product) {
        BOOST_TEST(!model_matches(product, other), product << " matched " << other);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// Needs the Alibaba trace in ../shared: a suite and ctest entry of its own, skipped alone.
BOOST_AUTO_TEST_SUITE(accelerator_names_shared_data)

BOOST_AUTO_TEST_CASE(alibabas_models_are_told_apart,
                     *boost::unit_test::precondition(SharedFileAvailable{
                         "data/alibaba-gpu-2023"})) {
  const std::set<std::string> models = alibaba_models();
  BOOST_TEST(
      (models == std::set<std::string>{"A10", "G2", "G3", "P100", "T4", "V100M16", "V100M32"}));
  for (const std::string& wanted : models) {
    for (const std::string& model : models) {
      BOOST_TEST(model_matches(wanted, model) == (wanted == model), wanted << " vs " << model);
    }
  }
  // M16 and M32 are memory: a V100 request takes either, a 16 GB one only the first.
  BOOST_TEST(model_matches("V100", "V100M16"));
  BOOST_TEST(model_matches("V100", "V100M32"));
  BOOST_TEST(model_matches("V100-32GB", "V100M32"));
  BOOST_TEST(!model_matches("V100-32GB", "V100M16"));
  BOOST_TEST(!model_matches("A10", "A100-SXM4-40GB"));
}

BOOST_AUTO_TEST_SUITE_END()
