// ClusterView: what the centre knows of one cluster. Per-node state plus the aggregates and
// indexes a scheduler needs without scanning every node. Changes apply all or nothing.
//
// Node states are immutable once held and shared: a change replaces a node's state, never edits
// it, so views in one process (the centre's, its change log, every scheduler's) hold one copy of
// each state between them (issue 24: the schedulers' copies were half the runtime's memory).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <absl/container/btree_set.h>
#include <absl/container/node_hash_set.h>
#include <absl/types/span.h>

#include "model/accelerator_table.hpp"
#include "model/int128.hpp"
#include "model/node_state.hpp"
#include "model/view_revision.hpp"

namespace unisched::model {

/// The most of cpu (milli), memory (bytes) or pods one node may report: 2^46 (64 TiB of memory,
/// 70 billion cores). Far above any machine, and low enough that a view's totals (int64) hold the
/// sum of 131,072 nodes that each report it.
inline constexpr int64_t kMaxNodeAmount = int64_t{1} << 46;

/// The most devices one node may offer: far above any machine (a DGX with every GPU cut into
/// seven MIG slices has 56), and low enough that a device's index and topology group (16 bits)
/// never wrap. A node offering more is left out where it enters, with a warning naming it.
inline constexpr size_t kMaxNodeDevices = 4'096;

/// Why a batch of changes or a snapshot was refused.
enum class ViewError {
  EmptyName,         ///< a node without a name
  UnknownNode,       ///< update or removal of a node the view does not hold
  DuplicateNode,     ///< addition of a node the view already holds (or twice in one batch)
  AmountOutOfRange,  ///< a negative amount, or one over kMaxNodeAmount
  OverAllocated,     ///< more allocated than allocatable (cpu, memory, pods)
  InvalidDevice,     ///< a device without a model, or allocated outside 0..1000 milli
  InvalidPort,       ///< host ports in use not ascending, repeated or outside 1..65535
  TooManyDevices,    ///< more than kMaxNodeDevices
};

const char* describe(ViewError error);

struct ViewProblem {
  ViewError error;
  std::string detail;  ///< names the node and the field
  std::string to_string() const;
};

/// A view's sums. The amounts are summed in 128 bits: nodes each within kMaxNodeAmount fill an
/// int64 at 131,072 of them, and a cluster may send ten million (a hostile agent would).
struct ClusterTotals {
  int64_t nodes = 0;
  int64_t schedulable_nodes = 0;
  int128_t allocatable_cpu_milli = 0;
  int128_t allocated_cpu_milli = 0;
  int128_t allocatable_memory_bytes = 0;
  int128_t allocated_memory_bytes = 0;
  int128_t pods = 0;
  bool operator==(const ClusterTotals& o) const;
};

/// Whether a node may hold more than it can: an agent's truth never does, but a view that
/// includes reservations not yet confirmed may, for a while.
enum class Allocation { MustFit, MayExceed };

/// Checks one node's own numbers (not its relation to a view).
std::optional<ViewProblem> check_node(const NodeState& node,
                                      Allocation allocation = Allocation::MustFit);

/// Which indexes a view keeps beside its nodes by name and its totals.
enum class ViewIndexes {
  /// The free-cpu and free-device indexes and the sampling slots that the policies read: a
  /// scheduler's view. The two free indexes are built by the first query that reads them and
  /// kept in step from then on: a sampled decision never reads them, and its scheduler then
  /// spends nothing on them as the view follows every change.
  ForScheduling,
  /// None of those: the centre's view, which no policy reads. It answers by name, in name order
  /// and by totals only, and spends nothing on keeping the rest in step with every change.
  NamesOnly,
};

class ClusterView;

/// One node drawn at random: from `view`, by `random` (as ClusterView::sample takes it).
struct SampleDraw {
  const ClusterView* view = nullptr;
  uint64_t random = 0;
};

class ClusterView {
 public:
  explicit ClusterView(ViewIndexes indexes = ViewIndexes::ForScheduling) : indexes_(indexes) {}
  /// A copy's indexes are its own, pointing at its own nodes (the free ones built when read).
  ClusterView(const ClusterView& other);
  ClusterView& operator=(const ClusterView& other);
  ClusterView(ClusterView&&) noexcept = default;  // nodes keep their addresses
  ClusterView& operator=(ClusterView&&) noexcept = default;

  /// Checks every change first; the view changes only if all of them are valid.
  std::optional<ViewProblem> apply(const std::vector<NodeChange>& changes,
                                   Allocation allocation = Allocation::MustFit);
  /// The same, taking the node states over instead of copying them.
  std::optional<ViewProblem> apply(std::vector<NodeChange>&& changes,
                                   Allocation allocation = Allocation::MustFit);
  /// The same, holding the very states the changes share (no copy): how a scheduler's view
  /// follows the centre's in one process. Each changed node takes the change's revision.
  std::optional<ViewProblem> apply(const std::vector<SharedNodeChange>& changes,
                                   Allocation allocation = Allocation::MustFit);

  /// Replaces every node and the shared resources (a full snapshot), all or nothing. The view
  /// keeps the indexes it was made with.
  std::optional<ViewProblem> replace(std::vector<NodeState> nodes, ClusterResources resources,
                                     Allocation allocation = Allocation::MustFit);
  /// The same, holding the very states given (no copy); every node starts at revision 0.
  std::optional<ViewProblem> replace(const std::vector<std::shared_ptr<const NodeState>>& nodes,
                                     ClusterResources resources,
                                     Allocation allocation = Allocation::MustFit);

  void set_resources(ClusterResources resources) { resources_ = std::move(resources); }

  const NodeState* find(const std::string& name) const;
  /// Holds `node` in place of the state held for its name when the two are equal in value,
  /// keeping the node's revision: nothing changed that a reader could see, and the view now
  /// shares this state (an agent's, say) instead of its own copy. False, and nothing done, when
  /// no node of that name is held or the held state differs.
  bool hold_equal(std::shared_ptr<const NodeState> node);
  /// The state held for a node, to share with another view; null for a node not held.
  std::shared_ptr<const NodeState> shared(std::string_view name) const;
  /// A held node's state and revision, found by one lookup (a commit reads both of each node).
  struct HeldState {
    const std::shared_ptr<const NodeState>* state = nullptr;  ///< null: no such node
    uint64_t revision = 0;
  };
  /// Valid until the view next changes.
  HeldState held(std::string_view name) const;
  size_t size() const { return nodes_.size(); }

  /// The revision at which a node last changed, as its holder numbers them (the centre's view
  /// revision, or the one a scheduler's copy was told of); 0 for a node not held or never
  /// numbered. Kept with the node, so no second map of names is needed. A node added by apply()
  /// of node changes or by replace() starts at 0 until numbered, a replaced one keeps its
  /// number; shared changes carry theirs.
  uint64_t revision_of(std::string_view name) const;
  /// Numbers a held node (nothing for a node not held).
  void set_revision(std::string_view name, uint64_t revision);
  /// Every node, ordered by name.
  std::vector<const NodeState*> sorted_nodes() const;
  /// The same nodes in the same order, each held state shared with its revision (to hand the
  /// view over, as a snapshot or a whole revision, without copying a node or looking one up).
  void visit_held(const std::function<void(const std::shared_ptr<const NodeState>&,
                                           uint64_t revision)>& visit) const;
  /// The same nodes in the same order, each handed to `visit` until it returns false (no list
  /// is built: a decision's scan stops at the first node that fits).
  void visit_nodes(const std::function<bool(const NodeState&)>& visit) const;

  const ClusterTotals& totals() const { return totals_; }
  const AcceleratorTable& accelerators() const { return accelerators_; }
  const ClusterResources& resources() const { return resources_; }

  /// Whether the view keeps the indexes the queries below read; on a view made with
  /// ViewIndexes::NamesOnly they throw std::logic_error (a policy given the centre's view).
  bool scheduling_indexes() const { return indexes_ == ViewIndexes::ForScheduling; }
  /// Whether the free-cpu and free-device indexes are built (and so kept in step).
  bool free_indexes_built() const { return free_indexes_built_; }

  /// The models of which some node has a free device, in name order.
  std::vector<Symbol> models_with_free_devices() const;
  /// Nodes with at least `count` free devices of `model`, read from the free-device index.
  std::vector<const NodeState*> nodes_with_free_devices(const Symbol& model, int32_t count) const;
  /// The same nodes in the same order, each handed to `visit` until it returns false.
  void visit_free_devices(const Symbol& model, int32_t count,
                          const std::function<bool(const NodeState&)>& visit) const;

  /// Nodes with at least `milli` cpu unallocated, read from the free-cpu index.
  std::vector<const NodeState*> nodes_with_free_cpu(int64_t milli) const;
  /// The same nodes in the same order, each handed to `visit` until it returns false.
  void visit_free_cpu(int64_t milli, const std::function<bool(const NodeState&)>& visit) const;

  /// A node chosen by `random` (any 64-bit number), uniformly, in constant time; null for an
  /// empty view.
  const NodeState* sample(uint64_t random) const;
  /// sample() of every draw, in order, into `nodes` (as many): the same nodes, found faster.
  /// A draw's loads depend on one another (slot, state, devices) and each misses the cache in a
  /// large fleet; taken stage by stage over all the draws, the misses overlap.
  static void sample_each(absl::Span<const SampleDraw> draws, absl::Span<const NodeState*> nodes);
  /// How many draws sample_each() fetches together; more are taken in groups of this many.
  static constexpr size_t kDrawsFetchedTogether = 16;

 private:
  /// A node as the view holds it: its shared state, and its revision.
  struct HeldNode {
    std::shared_ptr<const NodeState> node;
    uint64_t revision = 0;
    /// Its place in `slots_` (a scheduling view's), in room the struct's padding had anyway.
    uint32_t slot = 0;
    const std::string& name() const { return node->name; }
  };
  /// Index entries point at the held nodes in `nodes_` (whose addresses never change, while the
  /// state they hold is replaced on each change) and order them by name, so the indexes copy no
  /// names and allocate no strings.
  struct ByName {
    bool operator()(const HeldNode* a, const HeldNode* b) const { return a->name() < b->name(); }
  };
  /// A held node with eight bytes of its name past the prefix every held name shares: an index
  /// in name order settles most comparisons by the key, without reading the node's name (two
  /// loads away, and a cache miss in a large view).
  struct KeyedNode {
    uint64_t name_key = 0;
    const HeldNode* held = nullptr;  ///< null: a bound before every node
  };
  /// Name order of keyed nodes: the keys' order, the names' where the keys are equal.
  static bool named_before(const KeyedNode& a, const KeyedNode& b) {
    if (a.name_key != b.name_key) {
      return a.name_key < b.name_key;
    }
    return b.held != nullptr && (a.held == nullptr || a.held->name() < b.held->name());
  }
  struct ByNameKey {
    bool operator()(const KeyedNode& a, const KeyedNode& b) const { return named_before(a, b); }
  };
  using FreeDeviceBucket = absl::btree_set<KeyedNode, ByNameKey>;
  /// A free-cpu index entry; nodes of equal free cpu are in name order.
  struct FreeCpuEntry {
    int64_t free_cpu = 0;
    KeyedNode node;
  };
  struct ByFreeCpuThenName {
    bool operator()(const FreeCpuEntry& a, const FreeCpuEntry& b) const {
      return a.free_cpu != b.free_cpu ? a.free_cpu < b.free_cpu : named_before(a.node, b.node);
    }
  };

  /// Checks the batch against the view without changing it.
  template <class Change>
  std::optional<ViewProblem> check(const std::vector<Change>& changes, Allocation allocation) const;
  template <class Changes>
  void commit(Changes&& changes);
  /// Puts `state` in place of the node's held state (or holds it, for a new node), keeping the
  /// totals and indexes in step; without a revision the node keeps its own (0 when new).
  void hold(std::shared_ptr<const NodeState> state, std::optional<uint64_t> revision);
  /// What a node is indexed under: its free cpu and its free devices per model (up to 8
  /// models; a node with more is indexed out and in again on each change).
  struct IndexKeys {
    int64_t free_cpu = 0;
    std::array<std::pair<Symbol, int32_t>, 8> free_devices;
    size_t models = 0;
  };
  static std::optional<IndexKeys> keys_of(const NodeState& node);
  /// Adds (sign 1) or removes (-1) a node to or from the totals and the indexes.
  void account(const HeldNode& held, int sign);
  /// Adds (sign 1) or removes (-1) a node to or from the free indexes alone.
  void index(const HeldNode& held, int sign) const;
  /// Builds the free indexes from the held nodes unless they are built (see ViewIndexes);
  /// `query` names the caller, which needs the scheduling indexes.
  void build_free_indexes(const char* query) const;
  /// Adds (sign 1) or removes (-1) a node to or from the totals alone.
  void count(const NodeState& node, int sign);
  /// The same for the totals of cpu, memory and pods alone (not the devices').
  void count_amounts(const NodeState& node, int sign);
  static int64_t free_cpu_of(const NodeState& node) {
    return node.allocatable_cpu_milli - node.allocated_cpu_milli;
  }
  /// Moves a node's free-cpu index entry from one amount to another.
  void move_free_cpu(const HeldNode& held, int64_t before, int64_t after) const;
  /// The node with its name key, as the indexes hold it.
  KeyedNode keyed(const HeldNode& held) const { return {name_key(held.name()), &held}; }
  /// Eight bytes of `name` from `shared_name_prefix_` on, zero-padded, big-endian: names the
  /// keys order are in that order too (equal keys leave the order to the whole names).
  uint64_t name_key(const std::string& name) const;
  /// Shortens `shared_name_prefix_` to what the held names share, and keys the indexes afresh
  /// when it changed (a node whose name differs earlier joined).
  void share_name_prefix();
  /// Rebuilds an index with the name key of each entry's node (`node_of(entry)`) made afresh.
  template <class Index, class NodeOf>
  void rekey(Index& index, NodeOf node_of) const;
  void index_free_devices(const KeyedNode& node, const Symbol& model, int32_t free, int sign) const;
  /// Takes a node's index entries out, found by the keys it had when they were made.
  void unindex(const HeldNode& held, const IndexKeys& keys) const;
  /// Moves a changed node's index entries from its old keys to its new ones.
  void reindex(const HeldNode& held, const IndexKeys& before, const IndexKeys& after) const;

  /// Throws unless the view keeps the scheduling indexes; `query` names the caller.
  void require_scheduling_indexes(const char* query) const;

  /// Adds a held node to the name order and the sampling slots, or takes it out of both.
  void enlist(const HeldNode& held);
  void delist(const HeldNode& held);
  /// Puts `state` in the held node's place, in its sampling slot too.
  void put_state(const HeldNode& held, std::shared_ptr<const NodeState> state);

  /// Hash and equality of held nodes by name, looked up by name alone: the set holds no second
  /// copy of each name as a key.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
    size_t operator()(const HeldNode& held) const { return (*this)(held.name()); }
  };
  struct SameName {
    using is_transparent = void;
    static std::string_view name_of(std::string_view name) { return name; }
    static std::string_view name_of(const HeldNode& held) { return held.name(); }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return name_of(a) == name_of(b);
    }
  };
  /// The nodes; an element's address never changes while it is held. An element's state and
  /// revision are replaced in place (never its name, which places it) through a const_cast.
  absl::node_hash_set<HeldNode, NameHash, SameName> nodes_;
  // The ordered indexes are B-trees: an entry takes about a pointer's room instead of a red-black
  // node's 40-48 bytes, in every view (the centre's and each scheduler's).
  absl::btree_set<const HeldNode*, ByName> by_name_;  // the same nodes, in name order
  // The same nodes' states again, in no order, for sampling by position: drawing from the hash
  // table's buckets was a third of a sampled decision (walking chains, divisions, cache misses).
  // A slot points at the state itself, not at its held node: one cache miss fewer per draw.
  std::vector<const NodeState*> slots_;
  ClusterTotals totals_;
  AcceleratorTable accelerators_;
  // Built by the first query that reads them (ViewIndexes::ForScheduling), inside a const
  // query: a view has one owner (a scheduler, a simulation, a replay); no reader races a build.
  // model -> number of free devices on a node -> the nodes with exactly that many (>= 1)
  mutable std::map<Symbol, std::map<int32_t, FreeDeviceBucket>> free_index_;
  mutable absl::btree_set<FreeCpuEntry, ByFreeCpuThenName> free_cpu_index_;
  mutable bool free_indexes_built_ = false;
  // The bytes every held name begins with (at least: it does not grow back when nodes leave).
  size_t shared_name_prefix_ = SIZE_MAX;
  ClusterResources resources_;
  ViewIndexes indexes_ = ViewIndexes::ForScheduling;
};

}  // namespace unisched::model
