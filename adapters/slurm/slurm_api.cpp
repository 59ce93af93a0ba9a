#include "adapters/slurm/slurm_api.hpp"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

namespace unisched::adapters::slurm {
namespace {

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
  slurm_init(slurm_conf.empty() ? nullptr : slurm_conf.c_str());
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
  std::vector<SlurmNode> nodes;
  for (uint32_t i = 0; i < message->record_count; ++i) {
    if (message->node_array[i].name != nullptr) {
      nodes.push_back(copy_node(message->node_array[i]));
    }
  }
  slurm_free_node_info_msg(message);
  return nodes;
}

}  // namespace unisched::adapters::slurm
