#include "adapters/kubernetes/pod_writer.hpp"

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>

#include "adapters/kubernetes/kube_objects.hpp"
#include "model/names.hpp"
#include "model/printable.hpp"

namespace unisched::adapters::kubernetes {
namespace {

using Json = nlohmann::json;

/// One pod's creation or deletion; a write that takes longer fails, and its placement is refused.
constexpr std::chrono::seconds kWriteTimeout{30};

/// A DNS-1123 pod name for a placement ID: readable, and unique by a hash of the ID.
std::string pod_name(const std::string& placement_id) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (const char c : placement_id) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  }
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%08x", hash);
  const std::string readable = model::dns1123_label_from(placement_id, 41);
  return "unisched-" + (readable.empty() ? std::string() : readable + "-") + suffix;
}

}  // namespace

model::Expected<PodToCreate, std::string> pod_for(const Placement& placement,
                                                  const model::NodeState& node) {
  if (placement.milli_per_device < model::kWholeDeviceMilli && !placement.devices.empty()) {
    return std::string(
        "a share of a device cannot be asked of Kubernetes, which counts extended resources in "
        "whole units");
  }
  std::map<std::string, int64_t> devices;
  for (const int32_t index : placement.devices) {
    if (index < 0 || static_cast<size_t>(index) >= node.devices.size() ||
        node.devices[index].resource.str().empty()) {
      return "device " + std::to_string(index) + " of node " + node.name + " is not known";
    }
    ++devices[node.devices[index].resource.str()];
  }
  Json pod =
      placement.pod_template.empty()
          ? Json{{"spec",
                  {{"containers", {{{"name", "work"}, {"image", "registry.k8s.io/pause:3.9"}}}}}}}
          : Json::parse(placement.pod_template, nullptr, false);
  if (pod.is_discarded() || !pod["spec"]["containers"].is_array() ||
      pod["spec"]["containers"].empty()) {
    return std::string("the request's template has no containers");
  }
  if (!pod["metadata"].is_object()) {
    pod["metadata"] = Json::object();
  }
  PodToCreate out;
  out.name = pod_name(placement.id);
  out.namespace_name = pod["metadata"].value("namespace", std::string("default"));
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  pod["metadata"]["name"] = out.name;
  pod["metadata"]["namespace"] = out.namespace_name;
  pod["metadata"]["labels"][kPlacementLabel] = out.name;
  pod["metadata"]["annotations"][kPlacementAnnotation] = placement.id;
  pod["spec"]["nodeName"] = node.name;
  Json& resources = pod["spec"]["containers"][0]["resources"];
  resources["requests"]["cpu"] = std::to_string(placement.cpu_milli) + "m";
  resources["requests"]["memory"] = std::to_string(placement.memory_bytes);
  for (const auto& [resource, count] : devices) {
    resources["requests"][resource] = std::to_string(count);  // extended: limits must equal
    resources["limits"][resource] = std::to_string(count);
  }
  out.json = pod.dump();
  return out;
}

PodWriter::PodWriter(ClusterAccess access,
                     std::function<void(const std::string&, const std::string&)> on_failure)
    : client_(std::move(access)), on_failure_(std::move(on_failure)), thread_([this] { run(); }) {}

PodWriter::~PodWriter() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void PodWriter::create(const std::string& placement_id, PodToCreate pod) {
  std::lock_guard<std::mutex> guard(mutex_);
  jobs_.push_back({placement_id, "POST", "/api/v1/namespaces/" + pod.namespace_name + "/pods",
                   std::move(pod.json)});
  wake_.notify_one();
}

void PodWriter::remove(const std::string& namespace_name, const std::string& name) {
  std::lock_guard<std::mutex> guard(mutex_);
  jobs_.push_back({{}, "DELETE", "/api/v1/namespaces/" + namespace_name + "/pods/" + name, {}});
  wake_.notify_one();
}

void PodWriter::run() {
  KubeReader reader;
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) {
        return;
      }
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    const HttpResponse response =
        client_.call(job.method.c_str(), job.path, job.body, kWriteTimeout);
    if (response.ok()) {
      continue;
    }
    const auto status = reader.status(response.body);
    const std::string reason =
        !response.error.empty() ? response.error
        : status ? std::to_string(status->code) + " " + status->reason + ": " + status->message
                 : "HTTP " + std::to_string(response.status);
    spdlog::warn("kubernetes: {} {} refused: {}", job.method, job.path, model::printable(reason));
    if (!job.placement_id.empty()) {
      on_failure_(job.placement_id, "the API server refused the pod: " + reason);
    }
  }
}

}  // namespace unisched::adapters::kubernetes
