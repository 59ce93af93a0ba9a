// Bench scenario `sample-quality`: what the adaptive node sample costs in placement quality.
// The run's simulated clusters (config/profiles) and its default workload at 200 requests/s;
// each request is decided with the adaptive sample, and every `audit_every`-th also with every
// node scored on the same views, and the two first replicas' scores are compared. The sampled
// decisions are applied to the views (and released when their work ends), so the fleet fills
// as it does in `unisched run`. Policy only, no actors: the figures are the pipeline's own.
#pragma once

#include <cstdint>
#include <string>

#include "tools/bench/flags.hpp"

namespace unisched::bench {

struct SampleQualityParameters {
  int clusters = 5;
  int nodes = 40;    ///< per cluster
  int seconds = 10;  ///< of arrivals
  double rate = 200;
  int audit_every = 1;  ///< compare every n-th decision with the exhaustive one
  std::string policy = "balanced";
  std::string profiles;  ///< directory of ClusterResourceProfiles
};

struct SampleQualityResult {
  uint64_t fleet_nodes = 0;
  uint64_t nodes_scored = 0;  ///< per replica, by the adaptive rule (0: every node)
  uint64_t requests = 0;
  uint64_t placed = 0;          ///< by the sampled decisions
  uint64_t compared = 0;        ///< decisions both ways that placed a first replica
  uint64_t same_score = 0;      ///< of those, the sample found a node as good as the best
  double mean_score_ratio = 0;  ///< sampled first replica's score / the best node's
  double p1_score_ratio = 0;    ///< the 1st percentile of that ratio (the worst 1%)
  double sampled_ms = 0;        ///< per compared decision, with the sample
  double every_ms = 0;          ///< per compared decision, every node scored
  std::string problem;
};

SampleQualityResult sample_quality(const SampleQualityParameters& parameters);

/// The scenario: 5 x 40, 100 x 1,000 and 50 x 2,000 (every 10th decision compared at the two
/// large sizes), or the --clusters x --nodes given; one JSON line each.
bool run_sample_quality(const Flags& flags, const std::string& self_command);

}  // namespace unisched::bench
