// List-and-watch ingest from a Kubernetes API server: the project's test API server
// (tests/kube_api) started with generated nodes over TLS, read by the Kubernetes adapter.
#pragma once

#include <cstdint>
#include <string>

namespace unisched::bench {

struct KubeIngestResult {
  double list_seconds = 0;  ///< connect until nodes and pods are listed (paged) and held
  double list_nodes_per_s = 0;
  double parse_nodes_per_s = 0;  ///< reading one whole NodeList body, parse and convert only
  double watch_seconds = 0;      ///< first change sent until the adapter has applied the last
  double watch_events_per_s = 0;
  uint64_t pages = 0;
  std::string problem;
};

/// Lists `nodes` generated nodes, then watches `events` node changes arrive.
KubeIngestResult kube_ingest(int nodes, int events);

}  // namespace unisched::bench
