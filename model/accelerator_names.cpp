#include "model/accelerator_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "model/names.hpp"

namespace unisched::model {
namespace {

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

/// The kind of a valid extended resource name, from its vendor and name.
AcceleratorType kind_of_resource(std::string_view resource) {
  const std::string_view domain = resource.substr(0, resource.find('/'));
  const std::string_view name = resource.substr(resource.find('/') + 1);
  if (contains(name, "fpga") || contains(domain, "fpga") || domain == "xilinx.com") {
    return AcceleratorType::FPGA;
  }
  if (domain == "google.com" && contains(name, "tpu")) {
    return AcceleratorType::TPU;
  }
  if (domain == "habana.ai" || contains(name, "gaudi") || contains(name, "neuron")) {
    return AcceleratorType::NPU;
  }
  if (contains(name, "gpu") || (domain == "nvidia.com" && name.rfind("mig-", 0) == 0) ||
      (domain == "amd.com" && (contains(name, "_nps") || contains(name, "xcp")))) {
    return AcceleratorType::GPU;
  }
  return AcceleratorType::Other;
}

/// Kubernetes' rule for an extended resource name; empty when `text` is one.
std::string extended_resource_refusal(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return "must be a fully-qualified resource name (vendor.domain/name, e.g. nvidia.com/gpu) or "
           "one of GPU, NPU, TPU, FPGA";
  }
  const std::string_view domain = text.substr(0, slash);
  if (domain == "kubernetes.io" || ends_with(domain, ".kubernetes.io")) {
    return "must be an extended resource name outside the kubernetes.io domain";
  }
  // Kubernetes checks "requests." + name as a qualified name, so the domain loses 9 characters.
  if (std::string reason = check_label_key(text); !reason.empty()) {
    return reason;
  }
  if (domain.size() + 9 > 253) {
    return "prefix part must be no more than 244 characters";
  }
  return {};
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

struct LinkSpelling {
  Interconnect kind;
  std::string_view name;
  std::string_view generation_prefix;  // between '-' and the number
};

constexpr std::array<LinkSpelling, 6> kLinks = {{
    {Interconnect::PCIe, "PCIe", "Gen"},
    {Interconnect::NVLink, "NVLink", ""},
    {Interconnect::NVSwitch, "NVSwitch", ""},
    {Interconnect::XGMI, "xGMI", ""},
    {Interconnect::XGMI, "XGMI", ""},
    {Interconnect::ICI, "ICI", ""},
}};

std::optional<int32_t> small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 2 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  const int32_t value = std::stoi(std::string(digits));
  return value >= 1 ? std::optional<int32_t>(value) : std::nullopt;
}

/// A model name read by the rule in the header.
struct ModelTokens {
  std::set<std::string> core;
  std::optional<int64_t> memory_gb;
  std::string partition;
};

bool is_vendor(const std::string& token) {
  static const std::set<std::string> kVendors = {"nvidia",   "tesla", "amd",
                                                 "instinct", "intel", "habana"};
  return kVendors.count(token) > 0;
}

/// "80gb", "192g", "40gib": memory in GB.
std::optional<int64_t> memory_token(const std::string& token) {
  size_t digits = 0;
  while (digits < token.size() && std::isdigit(static_cast<unsigned char>(token[digits]))) {
    ++digits;
  }
  const std::string unit = token.substr(digits);
  if (digits == 0 || digits > 4 || (unit != "gb" && unit != "g" && unit != "gib")) {
    return std::nullopt;
  }
  return std::stoll(token.substr(0, digits));
}

/// "4q", "8a", "2b", "1c": an NVIDIA vGPU profile.
bool is_vgpu_profile(const std::string& token) {
  return token.size() >= 2 && token.size() <= 3 &&
         std::all_of(token.begin(), token.end() - 1,
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
         std::string_view("qabc").find(token.back()) != std::string_view::npos;
}

std::vector<std::string> split_tokens(std::string_view name) {
  std::vector<std::string> tokens;
  std::string current;
  bool in_mig_profile = false;  // "1g.5gb" keeps its dot
  for (const char c : lowercase(name)) {
    const bool separator =
        c == '-' || c == '_' || c == ' ' || c == '/' || (c == '.' && !in_mig_profile);
    if (!separator) {
      current.push_back(c);
      continue;
    }
    if (!current.empty()) {
      in_mig_profile = current == "mig";
      tokens.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) {
    tokens.push_back(std::move(current));
  }
  return tokens;
}

ModelTokens read_model(std::string_view name) {
  ModelTokens out;
  const std::vector<std::string> tokens = split_tokens(name);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token == "mig") {
      out.partition = "mig-" + (i + 1 < tokens.size() ? tokens[++i] : std::string());
    } else if (token == "cpx" || token == "dpx" || token == "qpx" || token == "tpx") {
      out.partition = "amd-" + token;  // an AMD compute partition: a part of one GPU
    } else if (is_vgpu_profile(token)) {
      out.partition = "vgpu-" + token;
    } else if (const auto memory = memory_token(token)) {
      out.memory_gb = *memory;
    } else if (!is_vendor(token)) {
      // "v100m16": a V100 of 16 GB.
      const size_t m = token.rfind('m');
      if (m != std::string::npos && m > 0 && m + 1 < token.size() &&
          std::isdigit(static_cast<unsigned char>(token[m - 1])) &&
          std::all_of(token.begin() + static_cast<std::ptrdiff_t>(m) + 1, token.end(),
                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        out.core.insert(token.substr(0, m));
        out.memory_gb = std::stoll(token.substr(m + 1));
      } else {
        out.core.insert(token);
      }
    }
  }
  return out;
}

}  // namespace

Expected<AcceleratorKind, std::string> parse_accelerator_type(std::string_view text) {
  for (const auto& [type, spelling] : kAcceleratorTypes) {
    if (text == spelling) {
      return AcceleratorKind{type, {}};
    }
  }
  if (std::string reason = extended_resource_refusal(text); !reason.empty()) {
    return reason;
  }
  return AcceleratorKind{kind_of_resource(text), std::string(text)};
}

std::string accelerator_type_text(const AcceleratorKind& kind) {
  return kind.resource.empty() ? std::string(spelling(kAcceleratorTypes, kind.type))
                               : kind.resource;
}

Expected<Link, std::string> parse_link(std::string_view text, bool minimum) {
  const std::string supported =
      "supported values: \"PCIe\", \"PCIe-Gen<N>\", \"NVLink\", \"NVLink-<N>\", \"NVSwitch\", "
      "\"NVSwitch-<N>\", \"xGMI\", \"xGMI-<N>\", \"ICI\", \"ICI-<N>\"" +
      std::string(minimum ? " (a generation asked for is a minimum; \"NVLink>=4\" says so too)"
                          : "");
  for (const LinkSpelling& link : kLinks) {
    if (text.rfind(link.name, 0) != 0) {
      continue;
    }
    std::string_view rest = text.substr(link.name.size());
    if (rest.empty()) {
      return Link{link.kind, 0};
    }
    if (minimum && rest.rfind(">=", 0) == 0) {
      rest.remove_prefix(2);
    } else if (rest.front() == '-') {
      rest.remove_prefix(1);
      if (rest.rfind(link.generation_prefix, 0) != 0) {
        break;
      }
      rest.remove_prefix(link.generation_prefix.size());
    } else {
      break;
    }
    if (const auto generation = small_number(rest)) {
      return Link{link.kind, *generation};
    }
    break;
  }
  return supported;
}

std::string link_text(const Link& link) {
  std::string text(spelling(kInterconnects, link.kind));
  if (link.generation > 0) {
    text += link.kind == Interconnect::PCIe ? "-Gen" : "-";
    text += std::to_string(link.generation);
  }
  return text;
}

bool link_satisfies(const Link& device, const Link& required) {
  return interconnect_satisfies(device.kind, required.kind) &&
         (required.generation == 0 || device.generation >= required.generation);
}

bool model_matches(std::string_view wanted, std::string_view device_model) {
  if (wanted == device_model) {
    return true;
  }
  const ModelTokens want = read_model(wanted);
  const ModelTokens have = read_model(device_model);
  if (want.core.empty() || want.partition != have.partition) {
    return false;
  }
  if (want.memory_gb && want.memory_gb != have.memory_gb) {
    return false;
  }
  return std::includes(have.core.begin(), have.core.end(), want.core.begin(), want.core.end());
}

}  // namespace unisched::model
