#include "adapters/slurm/slurm_api.hpp"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

// Exported by libslurm but not declared in slurm.h (its argument is enum job_state_reason).
extern "C" char* slurm_job_reason_string(int reason);

namespace unisched::adapters::slurm {
namespace {

std::string job_state(uint32_t state) {
  static const char* const kNames[] = {"PENDING",   "RUNNING",   "SUSPENDED", "COMPLETED",
                                       "CANCELLED", "FAILED",    "TIMEOUT",   "NODE_FAIL",
                                       "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY"};
  const uint32_t base = state & JOB_STATE_BASE;
  return base < sizeof(kNames) / sizeof(kNames[0]) ? kNames[base] : "UNKNOWN";
}

std::string text_of(const char* text) {
  return text == nullptr ? std::string() : std::string(text);
}

std::string last_error(const std::string& what) {
  const int code = slurm_get_errno();
  return what + ": " + text_of(slurm_strerror(code)) + " (slurm error " + std::to_string(code) +
         ")";
}

std::string base_state(uint32_t state) {
  switch (state & NODE_STATE_BASE) {
    case NODE_STATE_DOWN:
      return "DOWN";
    case NODE_STATE_IDLE:
      return "IDLE";
    case NODE_STATE_ALLOCATED:
      return "ALLOCATED";
    case NODE_STATE_MIXED:
      return "MIXED";
    case NODE_STATE_FUTURE:
      return "FUTURE";
    default:
      return "UNKNOWN";
  }
}

SlurmNode copy_node(node_info_t& info) {
  SlurmNode node;
  node.name = text_of(info.name);
  node.cpus = info.cpus;
  uint16_t alloc_cpus = 0;
  uint64_t alloc_memory = 0;
  slurm_get_select_nodeinfo(info.select_nodeinfo, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED,
                            &alloc_cpus);
  slurm_get_select_nodeinfo(info.select_nodeinfo, SELECT_NODEDATA_MEM_ALLOC, NODE_STATE_ALLOCATED,
                            &alloc_memory);
  node.alloc_cpus = alloc_cpus;
  node.real_memory_mb = static_cast<int64_t>(info.real_memory);
  node.alloc_memory_mb = static_cast<int64_t>(alloc_memory);
  node.gres = text_of(info.gres);
  node.gres_used = text_of(info.gres_used);
  node.state = base_state(info.node_state);
  if (node.state == "ALLOCATED" && node.alloc_cpus < node.cpus) {
    node.state = "MIXED";  // Slurm reports a partly used node as ALLOCATED; MIXED is derived
  }
  node.drain = (info.node_state & NODE_STATE_DRAIN) != 0;
  node.not_responding = (info.node_state & (NODE_STATE_NO_RESPOND | NODE_STATE_FAIL)) != 0;
  node.reason = text_of(info.reason);
  node.partitions = text_of(info.partitions);
  node.features = text_of(info.features);
  return node;
}

}  // namespace

absl::StatusOr<SlurmApi> SlurmApi::open(const std::string& slurm_conf) {
  // libslurm waits a minute for a missing slurm.conf and then ends the process: look first.
  const char* from_environment = std::getenv("SLURM_CONF");
  const std::string path = !slurm_conf.empty()           ? slurm_conf
                           : from_environment != nullptr ? from_environment
                                                         : "/etc/slurm/slurm.conf";
  if (::access(path.c_str(), R_OK) != 0) {
    return absl::InvalidArgumentError("slurm.conf " + path + ": " + std::strerror(errno) +
                                      " (give --slurm-conf FILE)");
  }
  slurm_init(path.c_str());
  slurm_conf_t* config = nullptr;
  if (slurm_load_ctl_conf(0, &config) != SLURM_SUCCESS) {
    return absl::UnavailableError(last_error("cannot reach slurmctld"));
  }
  SlurmApi api;
  api.cluster_name_ = text_of(config->cluster_name);
  slurm_free_ctl_conf(config);
  return api;
}

absl::StatusOr<std::optional<std::vector<SlurmNode>>> SlurmApi::nodes_if_changed() {
  node_info_msg_t* message = nullptr;
  if (slurm_load_node(nodes_updated_, &message, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
    if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA) {
      return std::nullopt;
    }
    return absl::UnavailableError(last_error("slurm_load_node"));
  }
  nodes_updated_ = message->last_update;
  // A node's partitions are not in the node records: libslurm fills them in from the
  // partitions, as scontrol does.
  partition_info_msg_t* partitions = nullptr;
  if (slurm_load_partitions(0, &partitions, SHOW_ALL) != SLURM_SUCCESS) {
    slurm_free_node_info_msg(message);
    nodes_updated_ = 0;
    return absl::UnavailableError(last_error("slurm_load_partitions"));
  }
  slurm_populate_node_partitions(message, partitions);
  slurm_free_partition_info_msg(partitions);
  std::vector<SlurmNode> nodes;
  for (uint32_t i = 0; i < message->record_count; ++i) {
    if (message->node_array[i].name != nullptr) {
      nodes.push_back(copy_node(message->node_array[i]));
    }
  }
  slurm_free_node_info_msg(message);
  return nodes;
}

absl::StatusOr<std::optional<std::vector<SlurmJob>>> SlurmApi::jobs_if_changed() {
  job_info_msg_t* message = nullptr;
  if (slurm_load_jobs(jobs_updated_, &message, SHOW_ALL) != SLURM_SUCCESS) {
    if (slurm_get_errno() == SLURM_NO_CHANGE_IN_DATA) {
      return std::nullopt;
    }
    return absl::UnavailableError(last_error("slurm_load_jobs"));
  }
  jobs_updated_ = message->last_update;
  std::vector<SlurmJob> jobs;
  for (uint32_t i = 0; i < message->record_count; ++i) {
    const slurm_job_info_t& info = message->job_array[i];
    SlurmJob job;
    job.id = info.job_id;
    job.comment = text_of(info.comment);
    job.state = job_state(info.job_state);
    job.nodes = text_of(info.nodes);
    job.reason = text_of(slurm_job_reason_string(info.state_reason));
    jobs.push_back(std::move(job));
  }
  slurm_free_job_info_msg(message);
  return jobs;
}

absl::StatusOr<uint32_t> SlurmApi::submit(const JobRequest& request) {
  job_desc_msg_t job;
  slurm_init_job_desc_msg(&job);
  // libslurm takes char*; it copies nothing it is given, so these live until the call returns.
  std::string name = request.name;
  std::string comment = request.comment;
  std::string node = request.node;
  std::string gres = request.gres;
  std::string script = request.script;
  std::string work_dir = request.work_dir;
  std::string out = request.work_dir + "/unisched-%j.out";
  std::string path = "PATH=/usr/local/bin:/usr/bin:/bin";
  char* environment[] = {path.data(), nullptr};
  job.name = name.data();
  job.comment = comment.data();
  job.req_nodes = node.data();
  job.tres_per_node = gres.empty() ? nullptr : gres.data();
  job.min_nodes = 1;
  job.max_nodes = 1;
  job.num_tasks = 1;
  job.cpus_per_task = static_cast<uint16_t>(request.cpus);
  job.min_cpus = static_cast<uint32_t>(request.cpus);
  job.pn_min_memory = static_cast<uint64_t>(request.memory_mb);
  job.script = script.data();
  job.work_dir = work_dir.data();
  job.std_out = out.data();
  job.environment = environment;
  job.env_size = 1;
  job.user_id = ::getuid();
  job.group_id = ::getgid();
  submit_response_msg_t* response = nullptr;
  if (slurm_submit_batch_job(&job, &response) != SLURM_SUCCESS) {
    return absl::FailedPreconditionError(text_of(slurm_strerror(slurm_get_errno())));
  }
  const uint32_t id = response->job_id;
  slurm_free_submit_response_response_msg(response);
  return id;
}

absl::Status SlurmApi::cancel(uint32_t id) {
  if (slurm_kill_job(id, SIGKILL, 0) != SLURM_SUCCESS && slurm_get_errno() != ESLURM_ALREADY_DONE &&
      slurm_get_errno() != ESLURM_INVALID_JOB_ID) {
    return absl::UnavailableError(last_error("cancelling job " + std::to_string(id)));
  }
  return absl::OkStatus();
}

}  // namespace unisched::adapters::slurm
