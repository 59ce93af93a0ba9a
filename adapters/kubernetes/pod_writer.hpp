// Placements become pods: the request's PodTemplateSpec (or a pause container) bound to the
// chosen node through spec.nodeName, with the placement's cpu and memory as the first
// container's requests and its devices as whole units of the node's extended resources (the
// device plugin, not unisched, picks which devices; Kubernetes counts them in whole units, so a
// share of a device cannot be asked for). A PodWriter sends creations and deletions from its own
// thread, so the agent never waits on the API server.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "adapters/cluster_adapter.hpp"
#include "adapters/kubernetes/api_client.hpp"
#include "model/expected.hpp"
#include "model/node_state.hpp"

namespace unisched::adapters::kubernetes {

struct PodToCreate {
  std::string namespace_name;
  std::string name;
  std::string json;
};

/// The pod that carries out `placement` on `node`, or why Kubernetes cannot be asked for it.
model::Expected<PodToCreate, std::string> pod_for(const Placement& placement,
                                                  const model::NodeState& node);

class PodWriter {
 public:
  /// `on_failure(placement id, reason)` is called on the writer's thread when the API server
  /// refuses a creation.
  PodWriter(ClusterAccess access,
            std::function<void(const std::string&, const std::string&)> on_failure);
  ~PodWriter();  ///< sends what is queued, then stops
  PodWriter(const PodWriter&) = delete;
  PodWriter& operator=(const PodWriter&) = delete;

  void create(const std::string& placement_id, PodToCreate pod);
  void remove(const std::string& namespace_name, const std::string& name);

 private:
  struct Job {
    std::string placement_id;  ///< empty for a deletion
    std::string method;
    std::string path;
    std::string body;
  };
  void run();

  ApiClient client_;
  std::function<void(const std::string&, const std::string&)> on_failure_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace unisched::adapters::kubernetes
