#include "model/cluster_view.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace unisched::model {
namespace {

std::optional<ViewProblem> problem(ViewError error, const std::string& node, std::string detail) {
  // A name too long to be one is cut short, as any value that may be huge.
  const std::string shown = node.size() <= 253 ? quoted(node) : quoted_brief(node);
  return ViewProblem{error, "node " + shown + ": " + std::move(detail)};
}

const NodeState& state_of(const NodeChange& change) {
  return change.node;
}
const NodeState& state_of(const SharedNodeChange& change) {
  return *change.node;
}

}  // namespace

const char* describe(ViewError error) {
  switch (error) {
    case ViewError::EmptyName:
      return "node without a name";
    case ViewError::UnknownNode:
      return "unknown node";
    case ViewError::DuplicateNode:
      return "node already present";
    case ViewError::AmountOutOfRange:
      return "amount out of range";
    case ViewError::OverAllocated:
      return "allocated exceeds allocatable";
    case ViewError::InvalidDevice:
      return "invalid device";
    case ViewError::InvalidPort:
      return "invalid host port";
    case ViewError::TooManyDevices:
      return "too many devices";
  }
  return "invalid change";
}

std::string ViewProblem::to_string() const {
  return std::string(describe(error)) + ": " + detail;
}

bool ClusterTotals::operator==(const ClusterTotals& o) const {
  return nodes == o.nodes && schedulable_nodes == o.schedulable_nodes &&
         allocatable_cpu_milli == o.allocatable_cpu_milli &&
         allocated_cpu_milli == o.allocated_cpu_milli &&
         allocatable_memory_bytes == o.allocatable_memory_bytes &&
         allocated_memory_bytes == o.allocated_memory_bytes && pods == o.pods;
}

std::optional<ViewProblem> check_node(const NodeState& node, Allocation allocation) {
  if (node.name.empty()) {
    return ViewProblem{ViewError::EmptyName, "a node change must name its node"};
  }
  if (node.devices.size() > kMaxNodeDevices) {
    return problem(ViewError::TooManyDevices, node.name,
                   std::to_string(node.devices.size()) + " devices, more than the " +
                       std::to_string(kMaxNodeDevices) + " a node may offer");
  }
  const std::pair<const char*, int64_t> amounts[] = {
      {"allocatable_cpu_milli", node.allocatable_cpu_milli},
      {"allocated_cpu_milli", node.allocated_cpu_milli},
      {"allocatable_memory_bytes", node.allocatable_memory_bytes},
      {"allocated_memory_bytes", node.allocated_memory_bytes},
      {"max_pods", node.max_pods},
      {"pod_count", node.pod_count},
  };
  for (const auto& [field, value] : amounts) {
    if (value < 0 || value > kMaxNodeAmount) {
      return problem(ViewError::AmountOutOfRange, node.name,
                     std::string(field) + " is " + std::to_string(value) + ", not between 0 and " +
                         std::to_string(kMaxNodeAmount));
    }
  }
  if (allocation == Allocation::MustFit &&
      (node.allocated_cpu_milli > node.allocatable_cpu_milli ||
       node.allocated_memory_bytes > node.allocatable_memory_bytes ||
       node.pod_count > node.max_pods)) {
    return problem(ViewError::OverAllocated, node.name,
                   "allocated cpu " + std::to_string(node.allocated_cpu_milli) + "m of " +
                       std::to_string(node.allocatable_cpu_milli) + "m, memory " +
                       std::to_string(node.allocated_memory_bytes) + " of " +
                       std::to_string(node.allocatable_memory_bytes) + " bytes, pods " +
                       std::to_string(node.pod_count) + " of " + std::to_string(node.max_pods));
  }
  for (size_t i = 0; i < node.devices.size(); ++i) {
    const Device& device = node.devices[i];
    const int32_t max_milli =
        allocation == Allocation::MustFit ? kWholeDeviceMilli : std::numeric_limits<int32_t>::max();
    if (device.model.empty() || device.memory_bytes < 0 || device.allocated_milli < 0 ||
        device.allocated_milli > max_milli) {
      return problem(ViewError::InvalidDevice, node.name,
                     "device " + std::to_string(i) + " (model " + quoted(device.model.str()) +
                         ", memory " + std::to_string(device.memory_bytes) + ", allocated " +
                         std::to_string(device.allocated_milli) + " milli)");
    }
  }
  for (size_t i = 0; i < node.host_ports_in_use.size(); ++i) {
    const int32_t port = node.host_ports_in_use[i];
    if (port < 1 || port > 65535 || (i > 0 && node.host_ports_in_use[i - 1] >= port)) {
      return problem(ViewError::InvalidPort, node.name,
                     "host ports in use must be ascending, unique and within 1..65535 (port " +
                         std::to_string(port) + ")");
    }
  }
  return std::nullopt;
}

ClusterView::ClusterView(const ClusterView& other)
    : resources_(other.resources_), indexes_(other.indexes_) {
  nodes_.reserve(other.nodes_.size());
  if (scheduling_indexes()) {
    slots_.reserve(other.nodes_.size());
  }
  for (const HeldNode& held : other.nodes_) {
    const HeldNode& copy = *nodes_.insert(held).first;  // shares the state
    enlist(copy);
    account(copy, +1);
  }
}

ClusterView& ClusterView::operator=(const ClusterView& other) {
  if (this != &other) {
    *this = ClusterView(other);
  }
  return *this;
}

template <class Change>
std::optional<ViewProblem> ClusterView::check(const std::vector<Change>& changes,
                                              Allocation allocation) const {
  // A batch in strict name order (the centre publishes its changes so) names each node once:
  // whether a node exists is then the view's to say. Any other batch keeps the presence of each
  // node it touched as it goes, without touching the view.
  const bool each_once =
      std::adjacent_find(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
        return !(state_of(a).name < state_of(b).name);
      }) == changes.end();
  std::unordered_map<std::string_view, bool> present;
  if (!each_once) {
    present.reserve(changes.size());
  }
  for (const Change& change : changes) {
    const NodeState& state = state_of(change);
    if (state.name.empty()) {
      return ViewProblem{ViewError::EmptyName, "a node change must name its node"};
    }
    const std::string& name = state.name;
    const auto known = each_once ? present.end() : present.find(name);
    const bool exists =
        known != present.end() ? known->second : nodes_.count(std::string_view(name)) != 0;
    if (change.kind == NodeChangeKind::Add && exists) {
      return problem(ViewError::DuplicateNode, name, "added but already present");
    }
    if (change.kind != NodeChangeKind::Add && !exists) {
      return problem(ViewError::UnknownNode, name,
                     change.kind == NodeChangeKind::Remove ? "removed but not present"
                                                           : "updated but not present");
    }
    if (change.kind != NodeChangeKind::Remove) {
      if (auto invalid = check_node(state, allocation)) {
        return invalid;
      }
    }
    if (!each_once) {
      present[name] = change.kind != NodeChangeKind::Remove;
    }
  }
  return std::nullopt;
}

template <class Changes>
void ClusterView::commit(Changes&& changes) {
  using Change = std::decay_t<decltype(changes.front())>;
  for (auto& change : changes) {
    if (change.kind == NodeChangeKind::Remove) {
      const auto existing = nodes_.find(std::string_view(state_of(change).name));
      account(*existing, -1);
      delist(*existing);
      nodes_.erase(existing);
    } else if constexpr (std::is_same_v<Change, SharedNodeChange>) {
      hold(change.node, change.revision);
    } else if constexpr (std::is_lvalue_reference_v<Changes>) {
      hold(std::make_shared<const NodeState>(change.node), std::nullopt);
    } else {
      hold(std::make_shared<const NodeState>(std::move(change.node)), std::nullopt);
    }
  }
}

void ClusterView::hold(std::shared_ptr<const NodeState> state, std::optional<uint64_t> revision) {
  const auto existing = nodes_.find(std::string_view(state->name));
  if (existing == nodes_.end()) {
    const HeldNode& added = *nodes_.insert(HeldNode{std::move(state), revision.value_or(0)}).first;
    enlist(added);
    account(added, +1);
    return;
  }
  // The new state has the same name, so the node keeps its place in the set.
  HeldNode& held = const_cast<HeldNode&>(*existing);
  held.revision = revision.value_or(held.revision);
  if (held.node->devices == state->devices) {
    // Most updates (cpu, memory, pods): the device totals and the free-device index stay.
    count_amounts(*held.node, -1);
    count_amounts(*state, +1);
    if (free_indexes_built_) {
      move_free_cpu(held, free_cpu_of(*held.node), free_cpu_of(*state));
    }
    put_state(held, std::move(state));
    return;
  }
  if (!free_indexes_built_) {
    count(*held.node, -1);
    put_state(held, std::move(state));
    count(*held.node, +1);
    return;
  }
  const auto before = keys_of(*held.node);
  if (!before) {  // too many models to note: index it out and in again
    account(held, -1);
  } else {
    count(*held.node, -1);
  }
  put_state(held, std::move(state));
  const auto after = keys_of(*held.node);
  if (before && after) {
    count(*held.node, +1);
    reindex(held, *before, *after);
    return;
  }
  if (before) {
    unindex(held, *before);
  }
  account(held, +1);
}

std::optional<ViewProblem> ClusterView::apply(const std::vector<NodeChange>& changes,
                                              Allocation allocation) {
  if (auto invalid = check(changes, allocation)) {
    return invalid;
  }
  commit(changes);
  return std::nullopt;
}

std::optional<ViewProblem> ClusterView::apply(std::vector<NodeChange>&& changes,
                                              Allocation allocation) {
  if (auto invalid = check(changes, allocation)) {
    return invalid;
  }
  commit(std::move(changes));
  return std::nullopt;
}

std::optional<ViewProblem> ClusterView::apply(const std::vector<SharedNodeChange>& changes,
                                              Allocation allocation) {
  if (auto invalid = check(changes, allocation)) {
    return invalid;
  }
  commit(changes);
  return std::nullopt;
}

std::optional<ViewProblem> ClusterView::replace(std::vector<NodeState> nodes,
                                                ClusterResources resources, Allocation allocation) {
  std::vector<std::shared_ptr<const NodeState>> shared;
  shared.reserve(nodes.size());
  for (NodeState& node : nodes) {
    shared.push_back(std::make_shared<const NodeState>(std::move(node)));
  }
  return replace(shared, std::move(resources), allocation);
}

std::optional<ViewProblem> ClusterView::replace(
    const std::vector<std::shared_ptr<const NodeState>>& nodes, ClusterResources resources,
    Allocation allocation) {
  ClusterView fresh(indexes_);
  std::vector<SharedNodeChange> additions;
  additions.reserve(nodes.size());
  for (const auto& node : nodes) {
    additions.push_back(SharedNodeChange{NodeChangeKind::Add, node, 0});
  }
  fresh.nodes_.reserve(nodes.size());
  if (scheduling_indexes()) {
    fresh.slots_.reserve(nodes.size());
  }
  if (auto invalid = fresh.apply(additions, allocation)) {
    return invalid;
  }
  fresh.resources_ = std::move(resources);
  *this = std::move(fresh);
  return std::nullopt;
}

const NodeState* ClusterView::find(const std::string& name) const {
  const auto found = nodes_.find(std::string_view(name));
  return found == nodes_.end() ? nullptr : found->node.get();
}

bool ClusterView::hold_equal(std::shared_ptr<const NodeState> node) {
  const auto found = nodes_.find(std::string_view(node->name));
  if (found == nodes_.end() || !(*found->node == *node)) {
    return false;
  }
  // The same name and values: every index entry and total stays as it is.
  put_state(*found, std::move(node));
  return true;
}

std::shared_ptr<const NodeState> ClusterView::shared(std::string_view name) const {
  const auto found = nodes_.find(name);
  return found == nodes_.end() ? nullptr : found->node;
}

ClusterView::HeldState ClusterView::held(std::string_view name) const {
  const auto found = nodes_.find(name);
  return found == nodes_.end() ? HeldState{} : HeldState{&found->node, found->revision};
}

uint64_t ClusterView::revision_of(std::string_view name) const {
  const auto found = nodes_.find(name);
  return found == nodes_.end() ? 0 : found->revision;
}

void ClusterView::set_revision(std::string_view name, uint64_t revision) {
  if (const auto found = nodes_.find(name); found != nodes_.end()) {
    const_cast<HeldNode&>(*found).revision = revision;  // not what places it: its name
  }
}

std::vector<const NodeState*> ClusterView::sorted_nodes() const {
  std::vector<const NodeState*> nodes;
  nodes.reserve(by_name_.size());
  for (const HeldNode* held : by_name_) {
    nodes.push_back(held->node.get());
  }
  return nodes;
}

void ClusterView::visit_held(const std::function<void(const std::shared_ptr<const NodeState>&,
                                                      uint64_t revision)>& visit) const {
  for (const HeldNode* held : by_name_) {
    visit(held->node, held->revision);
  }
}

void ClusterView::visit_nodes(const std::function<bool(const NodeState&)>& visit) const {
  for (const HeldNode* held : by_name_) {
    if (!visit(*held->node)) {
      return;
    }
  }
}

void ClusterView::require_scheduling_indexes(const char* query) const {
  if (!scheduling_indexes()) {
    throw std::logic_error(std::string("ClusterView::") + query +
                           ": this view keeps no scheduling indexes (ViewIndexes::NamesOnly)");
  }
}

std::vector<Symbol> ClusterView::models_with_free_devices() const {
  build_free_indexes("models_with_free_devices");
  std::vector<Symbol> models;
  models.reserve(free_index_.size());
  for (const auto& entry : free_index_) {
    models.push_back(entry.first);
  }
  return models;
}

std::vector<const NodeState*> ClusterView::nodes_with_free_devices(const Symbol& model,
                                                                   int32_t count) const {
  std::vector<const NodeState*> found;
  visit_free_devices(model, count, [&](const NodeState& node) {
    found.push_back(&node);
    return true;
  });
  return found;
}

void ClusterView::visit_free_devices(const Symbol& model, int32_t count,
                                     const std::function<bool(const NodeState&)>& visit) const {
  build_free_indexes("visit_free_devices");
  const auto by_model = free_index_.find(model);
  if (by_model == free_index_.end()) {
    return;
  }
  for (auto bucket = by_model->second.lower_bound(count); bucket != by_model->second.end();
       ++bucket) {
    for (const KeyedNode& node : bucket->second) {
      if (!visit(*node.held->node)) {
        return;
      }
    }
  }
}

std::vector<const NodeState*> ClusterView::nodes_with_free_cpu(int64_t milli) const {
  std::vector<const NodeState*> found;
  visit_free_cpu(milli, [&](const NodeState& node) {
    found.push_back(&node);
    return true;
  });
  return found;
}

void ClusterView::visit_free_cpu(int64_t milli,
                                 const std::function<bool(const NodeState&)>& visit) const {
  build_free_indexes("visit_free_cpu");
  for (auto it = free_cpu_index_.lower_bound({milli, {}}); it != free_cpu_index_.end(); ++it) {
    if (!visit(*it->node.held->node)) {
      return;
    }
  }
}

const NodeState* ClusterView::sample(uint64_t random) const {
  require_scheduling_indexes("sample");
  return slots_.empty() ? nullptr : slots_[random % slots_.size()];
}

void ClusterView::sample_each(absl::Span<const SampleDraw> draws,
                              absl::Span<const NodeState*> nodes) {
  if (nodes.size() != draws.size()) {
    throw std::invalid_argument("ClusterView::sample_each: " + std::to_string(draws.size()) +
                                " draws but room for " + std::to_string(nodes.size()) + " nodes");
  }
  constexpr size_t kAtOnce = kDrawsFetchedTogether;  // 8 was 10% slower at 100 x 1,000 nodes
  constexpr size_t kLine = 64;
  for (size_t begin = 0; begin < draws.size(); begin += kAtOnce) {
    const size_t count = std::min(kAtOnce, draws.size() - begin);
    std::array<const NodeState* const*, kAtOnce> slots{};
    for (size_t i = 0; i < count; ++i) {
      const ClusterView& view = *draws[begin + i].view;
      view.require_scheduling_indexes("sample_each");
      if (!view.slots_.empty()) {
        slots[i] = &view.slots_[draws[begin + i].random % view.slots_.size()];
        __builtin_prefetch(slots[i]);
      }
    }
    for (size_t i = 0; i < count; ++i) {
      const NodeState* state = slots[i] == nullptr ? nullptr : *slots[i];
      if (state != nullptr) {  // the fields a fit reads and the name, which NodeState puts first
        const char* first = reinterpret_cast<const char*>(state);
        const char* end = reinterpret_cast<const char*>(&state->name + 1);
        for (const char* line = first; line < end; line += kLine) {
          __builtin_prefetch(line);
        }
        __builtin_prefetch(end - 1);
      }
      nodes[begin + i] = state;
    }
    // What a fit reads outside the state: devices spilled past its own room, a long name.
    for (size_t i = 0; i < count; ++i) {
      const NodeState* state = nodes[begin + i];
      if (state == nullptr) {
        continue;
      }
      const char* own_first = reinterpret_cast<const char*>(state);
      const char* own_end = own_first + sizeof(NodeState);
      const auto outside = [&](const char* at) { return at < own_first || at >= own_end; };
      const char* devices = reinterpret_cast<const char*>(state->devices.data());
      if (outside(devices)) {
        for (size_t line = 0; line < state->devices.size() * sizeof(Device); line += kLine) {
          __builtin_prefetch(devices + line);
        }
      }
      if (outside(state->name.data())) {
        __builtin_prefetch(state->name.data());
      }
    }
  }
}

void ClusterView::enlist(const HeldNode& held) {
  by_name_.insert(&held);
  if (scheduling_indexes()) {
    const_cast<HeldNode&>(held).slot = static_cast<uint32_t>(slots_.size());  // not its key
    slots_.push_back(held.node.get());
    share_name_prefix();  // before the node's own entry is keyed
  }
}

void ClusterView::delist(const HeldNode& held) {
  by_name_.erase(&held);
  if (!scheduling_indexes()) {
    return;
  }
  // The last slot's node moves into the freed slot; it is found by its name (removals are rare
  // beside updates).
  const NodeState* last = slots_.back();
  slots_[held.slot] = last;
  slots_.pop_back();
  if (held.slot < slots_.size()) {
    const auto moved = nodes_.find(std::string_view(last->name));
    const_cast<HeldNode&>(*moved).slot = held.slot;
  }
}

void ClusterView::put_state(const HeldNode& held, std::shared_ptr<const NodeState> state) {
  if (scheduling_indexes()) {
    slots_[held.slot] = state.get();
  }
  const_cast<HeldNode&>(held).node = std::move(state);  // the same name: the same place
}

}  // namespace unisched::model
