#include "policy/framework.hpp"
#include "policy/plugins/fgd.hpp"
#include "policy/plugins/filters.hpp"
#include "policy/plugins/scorers.hpp"

namespace unisched::policy {

const Registry& Registry::builtin() {
  static const Registry registry = [] {
    Registry r;
    r.add_filter("view-only", plugins::make_view_only_filter);
    r.add_filter("health", plugins::make_health_filter);
    r.add_filter("affinity", plugins::make_affinity_filter);
    r.add_filter("machine-type", plugins::make_machine_type_filter);
    r.add_filter("latency", plugins::make_latency_filter);
    r.add_filter("storage", plugins::make_storage_filter);
    r.add_filter("resource-fit", plugins::make_resource_fit_filter);
    r.add_scorer("least-allocated", plugins::make_least_allocated);
    r.add_scorer("most-allocated", plugins::make_most_allocated);
    r.add_scorer("gpu-packing", plugins::make_gpu_packing);
    r.add_scorer("locality", plugins::make_locality);
    r.add_scorer("best-fit", plugins::make_best_fit);
    r.add_scorer("random", plugins::make_random);
    r.add_scorer("dot-product", plugins::make_dot_product);
    r.add_scorer("gpu-share-packing", plugins::make_share_packing);
    r.add_scorer("gpu-in-use", plugins::make_gpu_in_use);
    return r;
  }();
  return registry;
}

bool Registry::add_filter(const std::string& name, FilterFactory factory) {
  for (const auto& [existing, unused] : filters_) {
    if (existing == name) {
      return false;
    }
  }
  filters_.emplace_back(name, std::move(factory));
  return true;
}

bool Registry::add_scorer(const std::string& name, ScorerFactory factory) {
  return scorers_.emplace(name, std::move(factory)).second;
}

std::optional<Policy> Registry::make_policy(
    const std::string& name, const std::vector<std::pair<std::string, double>>& scorers,
    std::string& error) const {
  Policy policy;
  policy.name = name;
  // In registration order: the cheap checks first, resource fit (which looks at nodes) last.
  for (const auto& [filter, factory] : filters_) {
    policy.filters.push_back(factory());
  }
  for (const auto& [scorer, weight] : scorers) {
    auto made = make_scorer(scorer);
    if (!made) {
      error = "unknown scorer \"" + scorer + "\"";
      return std::nullopt;
    }
    policy.scorers.push_back({std::move(made), weight});
  }
  return policy;
}

std::optional<Policy> Registry::preset(const std::string& name, std::string& error) const {
  if (name == "spread") {
    return make_policy(name, {{"least-allocated", 1.0}}, error);
  }
  if (name == "binpack") {
    return make_policy(name, {{"most-allocated", 1.0}, {"gpu-packing", 1.0}}, error);
  }
  if (name == "balanced") {
    return make_policy(name, {{"least-allocated", 1.0}, {"gpu-packing", 2.0}, {"locality", 0.5}},
                       error);
  }
  if (name == "bestfit") {
    return make_policy(name, {{"best-fit", 1.0}}, error);
  }
  if (name == "random") {
    return make_policy(name, {{"random", 1.0}}, error);
  }
  if (name == "fgd") {
    Policy policy = fgd_learning_preset();
    policy.name = name;
    return policy;
  }
  error = "unknown policy \"" + name + "\": use spread, binpack, balanced, bestfit, random or fgd";
  return std::nullopt;
}

std::shared_ptr<const NodeScorer> Registry::make_scorer(const std::string& name) const {
  const auto found = scorers_.find(name);
  return found == scorers_.end() ? nullptr : found->second();
}

std::vector<std::string> Registry::scorer_names() const {
  std::vector<std::string> names;
  for (const auto& [name, factory] : scorers_) {
    names.push_back(name);
  }
  return names;
}

}  // namespace unisched::policy
