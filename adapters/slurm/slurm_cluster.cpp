#include "adapters/slurm/slurm_cluster.hpp"

#include <spdlog/spdlog.h>

#include <absl/strings/str_split.h>

#include "model/names.hpp"

namespace unisched::adapters::slurm {

SlurmCluster::SlurmCluster(SlurmApi api, SlurmOptions options)
    : api_(std::move(api)), options_(std::move(options)) {
  model::ClusterProfileSpec& spec = profile_.spec;
  spec.cluster_id = options_.cluster_id.empty() ? model::dns1123_label_from(api_.cluster_name())
                                                : options_.cluster_id;
  spec.machine_type = model::MachineType::BareMetal;
  profile_.metadata.name = spec.cluster_id;
}

absl::StatusOr<std::unique_ptr<SlurmCluster>> SlurmCluster::connect(SlurmOptions options) {
  auto api = SlurmApi::open(options.slurm_conf);
  if (!api.ok()) {
    return api.status();
  }
  if (!options.cluster_id.empty()) {
    if (const std::string why = model::check_cluster_id(options.cluster_id); !why.empty()) {
      return absl::InvalidArgumentError("--cluster: " + why);
    }
  } else if (model::dns1123_label_from(api->cluster_name()).empty()) {
    return absl::InvalidArgumentError("slurm's ClusterName \"" + api->cluster_name() +
                                      "\" makes no cluster ID: set --cluster");
  }
  std::unique_ptr<SlurmCluster> cluster(new SlurmCluster(std::move(*api), std::move(options)));
  if (auto status = cluster->load(); !status.ok()) {
    return status;
  }
  spdlog::info("slurm: cluster {}: {} nodes", cluster->profile_.spec.cluster_id,
               cluster->current_.size());
  cluster->poller_ = std::thread([raw = cluster.get()] { raw->poll_until_stopped(); });
  return cluster;
}

SlurmCluster::~SlurmCluster() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (poller_.joinable()) {
    poller_.join();
  }
}

absl::Status SlurmCluster::load() {
  auto nodes = api_.nodes_if_changed();
  if (!nodes.ok()) {
    return nodes.status();
  }
  if (!nodes->has_value()) {
    return absl::OkStatus();
  }
  ++loads_;
  std::map<std::string, model::NodeState> current;
  for (const SlurmNode& node : **nodes) {
    if (!options_.partitions.empty()) {
      const std::vector<std::string> partitions = absl::StrSplit(node.partitions, ',');
      bool wanted = false;
      for (const std::string& partition : partitions) {
        wanted = wanted || options_.partitions.count(partition) > 0;
      }
      if (!wanted) {
        continue;
      }
    }
    auto state = node_state_of(node);
    std::lock_guard<std::mutex> guard(mutex_);
    if (!state.ok()) {
      ++skipped_;
      auto& logged = skipped_nodes_[node.name];
      if (logged != state.status().message()) {
        logged = std::string(state.status().message());
        spdlog::warn("slurm: node skipped: {}", logged);
      }
      continue;
    }
    skipped_nodes_.erase(node.name);
    current.emplace(node.name, std::move(*state));
  }
  std::lock_guard<std::mutex> guard(mutex_);
  current_ = std::move(current);
  return absl::OkStatus();
}

void SlurmCluster::poll_until_stopped() {
  bool failing = false;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (wake_.wait_for(lock, options_.poll_interval, [this] { return stopping_; })) {
        return;
      }
    }
    const absl::Status status = load();
    if (!status.ok() && !failing) {
      spdlog::warn("slurm: {}; keeping the last state and trying again",
                   std::string(status.message()));
    } else if (status.ok() && failing) {
      spdlog::info("slurm: slurmctld answers again");
    }
    failing = !status.ok();
  }
}

std::vector<model::NodeState> SlurmCluster::list_nodes() const {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<model::NodeState> nodes;
  for (const auto& [name, node] : current_) {
    nodes.push_back(node);
  }
  return nodes;
}

std::vector<model::NodeChange> SlurmCluster::poll_changes() {
  std::lock_guard<std::mutex> guard(mutex_);
  std::vector<model::NodeChange> changes;
  for (const auto& [name, node] : current_) {
    const auto reported = reported_.find(name);
    if (reported == reported_.end()) {
      changes.push_back({model::NodeChangeKind::Add, node});
    } else if (reported->second != node) {
      changes.push_back({model::NodeChangeKind::Update, node});
    }
  }
  for (const auto& [name, node] : reported_) {
    if (current_.count(name) == 0) {
      changes.push_back({model::NodeChangeKind::Remove, node});
    }
  }
  reported_ = current_;
  return changes;
}

PlacementOutcome SlurmCluster::apply(const Placement& placement) {
  // The cluster registers as a view only, so the centre sends no placements.
  spdlog::error("slurm: placement {} refused: this cluster joined as a view only", placement.id);
  return PlacementOutcome::Unschedulable;
}

bool SlurmCluster::release(const std::string&) {
  return false;  // nothing was placed here
}

}  // namespace unisched::adapters::slurm
