#include "policy/trace_policies.hpp"

#include "policy/plugins/fgd.hpp"
#include "policy/plugins/scorers.hpp"

namespace unisched::policy {
namespace {

Policy scored_by(const std::string& name, std::vector<WeightedScorer> scorers) {
  std::string unused;
  Policy policy = *Registry::builtin().make_policy(name, {}, unused);
  policy.scorers = std::move(scorers);
  policy.whole_scores = true;
  policy.ties = TieBreak::Shuffled;
  return policy;
}

std::shared_ptr<const NodeScorer> builtin(const std::string& scorer) {
  return Registry::builtin().make_scorer(scorer);
}

}  // namespace

const std::vector<std::string>& trace_policy_names() {
  static const std::vector<std::string> names{"random",     "dotprod",     "gpuclustering",
                                              "gpupacking", "bestfit",     "fgd",
                                              "fgd-packed", "fgd-learning"};
  return names;
}

std::optional<Policy> trace_policy(const std::string& name, const TracePolicyInputs& inputs,
                                   std::string& error) {
  if (name == "bestfit") {
    return scored_by(name, {{builtin("best-fit"), 1.0}});
  }
  if (name == "dotprod") {
    return scored_by(name, {{builtin("dot-product"), 1.0}});
  }
  if (name == "gpupacking") {
    return scored_by(name, {{builtin("gpu-share-packing"), 1.0}});
  }
  if (name == "gpuclustering") {
    const auto ledger = std::make_shared<PodClassLedger>();
    Policy policy = scored_by(name, {{make_gpu_clustering(ledger), 1.0}});
    policy.observers.push_back(ledger);
    return policy;
  }
  if (name == "random") {
    Policy policy = scored_by(name, {{builtin("random"), 1.0}});
    policy.whole_scores = false;  // one random winner: no ties to cut
    policy.share_chooser = plugins::make_random_device();
    return policy;
  }
  if (name == "fgd") {
    Policy policy = fgd_policy(inputs.typical_shapes, true);
    policy.ties = TieBreak::Shuffled;
    return policy;
  }
  if (name == "fgd-packed") {
    Policy policy = with_packed_ties(fgd_policy(inputs.typical_shapes, true));
    policy.name = name;
    return policy;
  }
  if (name == "fgd-learning") {
    Policy policy = fgd_learning_preset();
    policy.name = name;
    return policy;
  }
  error = "unknown policy \"" + name + "\": use";
  for (const std::string& known : trace_policy_names()) {
    error += " " + known;
  }
  return std::nullopt;
}

}  // namespace unisched::policy
