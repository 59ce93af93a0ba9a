#include "adapters/slurm/slurm_cluster.hpp"

#include <spdlog/spdlog.h>

#include <absl/strings/str_split.h>

#include <algorithm>

#include "adapters/slurm/job_script.hpp"
#include "model/names.hpp"

namespace unisched::adapters::slurm {

SlurmCluster::SlurmCluster(SlurmApi api, SlurmOptions options)
    : api_(std::move(api)), options_(std::move(options)), jobs_(options_.pending_limit) {
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
  if (auto status = cluster->load_jobs(); !status.ok()) {  // finds its jobs from before
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
  auto nodes = with_api([](SlurmApi& api) { return api.nodes_if_changed(); });
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
    absl::Status status = load();
    if (status.ok()) {
      status = load_jobs();
    }
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

absl::Status SlurmCluster::load_jobs() {
  auto jobs = with_api([](SlurmApi& api) { return api.jobs_if_changed(); });
  if (!jobs.ok()) {
    return jobs.status();
  }
  std::vector<JobTracker::Cancellation> cancel;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (jobs->has_value()) {
      jobs_.on_jobs(**jobs, JobTracker::Clock::now());
    }
    cancel = jobs_.expire(JobTracker::Clock::now());
  }
  for (JobTracker::Cancellation& cancelled : cancel) {
    const uint32_t job = cancelled.job;
    if (auto status = with_api([job](SlurmApi& api) { return api.cancel(job); }); !status.ok()) {
      spdlog::warn("slurm: {}", std::string(status.message()));
    }
    std::lock_guard<std::mutex> guard(mutex_);
    jobs_.report(std::move(cancelled.outcome));
  }
  return absl::OkStatus();
}

/// The batch job of `placement`: its node, its GPUs by type as Slurm counts them (whole
/// devices; Slurm picks which), whole CPUs (a share rounds up) and MiB of memory.
std::optional<JobRequest> SlurmCluster::job_for(const Placement& placement,
                                                std::string& problem) const {
  const auto node = current_.find(placement.node);
  if (node == current_.end()) {
    problem = "no node " + placement.node;
    return std::nullopt;
  }
  if (placement.milli_per_device != model::kWholeDeviceMilli && !placement.devices.empty()) {
    problem = "slurm hands out whole GPUs only";
    return std::nullopt;
  }
  std::map<std::string, int> gpus;
  for (const int32_t index : placement.devices) {
    if (index < 0 || static_cast<size_t>(index) >= node->second.devices.size()) {
      problem = "device " + std::to_string(index) + " not on " + placement.node;
      return std::nullopt;
    }
    ++gpus[node->second.devices[static_cast<size_t>(index)].model.str()];
  }
  auto script = batch_script(placement.pod_template);
  if (!script.ok()) {
    problem = std::string(script.status().message());
    return std::nullopt;
  }
  JobRequest job;
  job.name = "unisched";
  job.comment = JobTracker::comment_for(placement.id);
  job.node = placement.node;
  for (const auto& [type, count] : gpus) {
    job.gres +=
        (job.gres.empty() ? "gres:gpu:" : ",gres:gpu:") + type + ":" + std::to_string(count);
  }
  job.cpus = std::max<int64_t>(1, (placement.cpu_milli + 999) / 1000);
  job.memory_mb = std::max<int64_t>(1, (placement.memory_bytes + (1 << 20) - 1) >> 20);
  job.script = std::move(*script);
  job.work_dir = options_.work_dir;
  return job;
}

PlacementOutcome SlurmCluster::apply(const Placement& placement) {
  std::optional<JobRequest> job;
  std::string problem;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    if (jobs_.knows(placement.id)) {
      return PlacementOutcome::DuplicateId;
    }
    job = job_for(placement, problem);
    if (!job) {
      jobs_.refuse(placement.id, problem);
      return PlacementOutcome::Pending;  // refused with the reason, in the next poll_outcomes()
    }
  }
  const auto submitted = with_api([&job](SlurmApi& api) { return api.submit(*job); });
  std::lock_guard<std::mutex> guard(mutex_);
  if (!submitted.ok()) {
    jobs_.refuse(placement.id,
                 "slurm refused the job: " + std::string(submitted.status().message()));
  } else {
    spdlog::info("slurm: placement {} is job {} on {}", placement.id, *submitted, placement.node);
    jobs_.submitted(placement.id, *submitted, placement.node, JobTracker::Clock::now());
  }
  return PlacementOutcome::Pending;
}

std::vector<LaterOutcome> SlurmCluster::poll_outcomes() {
  std::lock_guard<std::mutex> guard(mutex_);
  return jobs_.take_outcomes();
}

std::vector<std::string> SlurmCluster::poll_finished() {
  std::lock_guard<std::mutex> guard(mutex_);
  return jobs_.take_finished();
}

std::vector<std::string> SlurmCluster::running_placements() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return jobs_.placements();
}

bool SlurmCluster::release(const std::string& placement_id) {
  std::optional<uint32_t> job;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    job = jobs_.release(placement_id);
  }
  if (!job) {
    return false;
  }
  if (auto status = with_api([&job](SlurmApi& api) { return api.cancel(*job); }); !status.ok()) {
    spdlog::warn("slurm: releasing {}: {}", placement_id, std::string(status.message()));
  }
  return true;
}

}  // namespace unisched::adapters::slurm
