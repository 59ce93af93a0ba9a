// Kubernetes Nodes and Pods as unisched sees them, read from the API's JSON (lists, watch events,
// Status bodies). What a node offers comes from its allocatable resources and the labels of GPU
// Feature Discovery and AMD's device plugin; what is taken on it from the pods bound to it.
// Resource versions are kept as the opaque strings they are.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/expected.hpp"
#include "model/node_state.hpp"

namespace unisched::adapters::kubernetes {

/// The label of a pod unisched created (its name), and the annotation with the placement it
/// carries out (placement IDs such as "train/3" are no label values).
inline constexpr const char* kPlacementLabel = "unisched.io/placement";
inline constexpr const char* kPlacementAnnotation = "unisched.io/placement-id";

/// A node as the API describes it, before its pods are counted (nothing allocated).
struct NodeReading {
  model::NodeState node;
  std::string resource_version;
  std::vector<std::string> notes;  ///< what was left out and why (e.g. a resource of 1000 units)
};

/// What a pod takes on its node, by Kubernetes' rule: the larger of its init containers' peak
/// and its containers (with sidecars), plus its overhead.
struct PodReading {
  std::string key;  ///< "namespace/name"
  std::string uid;
  std::string node;  ///< spec.nodeName; empty while unbound
  std::string phase;
  std::string failure;       ///< status.reason and message of a Failed pod ("OutOfcpu: ...")
  std::string placement_id;  ///< its kPlacementAnnotation; empty for pods unisched did not create
  std::string resource_version;
  int64_t cpu_milli = 0;
  int64_t memory_bytes = 0;
  std::map<std::string, int64_t> extended;  ///< e.g. "nvidia.com/gpu" -> 2
  std::vector<int32_t> host_ports;          ///< ascending, each once
  bool deleted = false;                     ///< metadata.deletionTimestamp is set

  /// Succeeded and Failed pods hold nothing.
  bool terminated() const { return phase == "Succeeded" || phase == "Failed"; }
};

/// A Status the API answered with (a failed request, a watch's ERROR event).
struct ApiStatus {
  int code = 0;  ///< HTTP code: 410 means the resource version is too old, whatever the reason
  std::string reason;
  std::string message;
};

template <class Object>
struct ObjectList {
  std::vector<Object> items;
  std::vector<std::string> skipped;  ///< "items[3] (node \"x\"): why", one per unreadable item
  std::string resource_version;
  std::string continue_token;  ///< empty on the last page
};

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

template <class Object>
struct WatchEvent {
  WatchEventType type = WatchEventType::Bookmark;
  std::optional<Object> object;     ///< Added, Modified, Deleted (when readable)
  std::string resource_version;     ///< the object's, or the bookmark's
  std::optional<ApiStatus> status;  ///< Error
  std::string skipped;              ///< why the object could not be read
};

/// Reads the API's JSON; keeps its parser's buffers between calls (one reader per thread).
class KubeReader {
 public:
  KubeReader();
  ~KubeReader();
  KubeReader(const KubeReader&) = delete;
  KubeReader& operator=(const KubeReader&) = delete;

  /// A NodeList or PodList page; an error when the text is no such list (a Status is reported
  /// with its code and message).
  model::Expected<ObjectList<NodeReading>, std::string> node_list(std::string_view json);
  model::Expected<ObjectList<PodReading>, std::string> pod_list(std::string_view json);

  /// One watch event (one line of the stream).
  model::Expected<WatchEvent<NodeReading>, std::string> node_event(std::string_view json);
  model::Expected<WatchEvent<PodReading>, std::string> pod_event(std::string_view json);

  /// The Status in a failed request's body; nullopt when it is not one.
  std::optional<ApiStatus> status(std::string_view json);

 private:
  struct Parser;
  std::unique_ptr<Parser> parser_;
};

/// `node` with what `pods` take counted on it (the non-terminated pods bound to it): cpu,
/// memory, pod slots, host ports, and for each extended resource that many of its devices,
/// whole, in index order (the device plugin, not unisched, picks which). A pod that asks more
/// than the node offers is not counted, and pods that together ask more make the node full;
/// each adds a line to `warnings`.
model::NodeState with_pods(const model::NodeState& node, const std::vector<const PodReading*>& pods,
                           std::vector<std::string>& warnings);

}  // namespace unisched::adapters::kubernetes
