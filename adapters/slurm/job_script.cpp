#include "adapters/slurm/job_script.hpp"

#include <nlohmann/json.hpp>

namespace unisched::adapters::slurm {

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return quoted + "'";
}

absl::StatusOr<std::string> batch_script(const std::string& pod_template) {
  std::string script = "#!/bin/sh\n";
  if (pod_template.empty()) {
    return script + "exec sleep infinity\n";
  }
  const nlohmann::json parsed = nlohmann::json::parse(pod_template, nullptr, false);
  if (!parsed.is_object()) {
    return absl::InvalidArgumentError("spec.template: not a JSON object");
  }
  const nlohmann::json* containers = nullptr;
  if (parsed.contains("spec") && parsed["spec"].is_object() &&
      parsed["spec"].contains("containers")) {
    containers = &parsed["spec"]["containers"];
  }
  if (containers == nullptr || !containers->is_array() || containers->empty()) {
    return script + "exec sleep infinity\n";
  }
  const nlohmann::json& first = (*containers)[0];
  std::string line;
  for (const char* field : {"command", "args"}) {
    if (!first.is_object() || !first.contains(field)) {
      continue;
    }
    const nlohmann::json& words = first[field];
    if (!words.is_array()) {
      return absl::InvalidArgumentError(std::string("spec.template.spec.containers[0].") + field +
                                        ": must be a list of strings");
    }
    for (const auto& word : words) {
      if (!word.is_string()) {
        return absl::InvalidArgumentError(std::string("spec.template.spec.containers[0].") + field +
                                          ": must be a list of strings");
      }
      line += (line.empty() ? "" : " ") + shell_quoted(word.get<std::string>());
    }
  }
  return script + (line.empty() ? "exec sleep infinity" : "exec " + line) + "\n";
}

}  // namespace unisched::adapters::slurm
