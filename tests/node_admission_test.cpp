// A node whose own record is unusable is left out of its cluster's view, by name, and the rest of
// the cluster is kept: at the model's door (NodeAdmission), in the ClusterActor's core, and where
// an agent's message is converted.
#include "model/node_admission.hpp"

#include <boost/test/unit_test.hpp>

#include "cores/agent_core.hpp"
#include "cores/cluster_core.hpp"
#include "messages/convert.hpp"
#include "messages/snapshot_parts.hpp"
#include "model/cluster_view.hpp"

using namespace unisched;
using actors::AckStatus;
using actors::ClusterCore;
using model::NodeChangeKind;

namespace {

model::NodeState node(const std::string& name, int64_t allocated_cpu = 0) {
  model::NodeState state;
  state.name = name;
  state.allocatable_cpu_milli = 1000;
  state.allocated_cpu_milli = allocated_cpu;
  state.max_pods = 10;
  return state;
}

model::NodeState with_devices(model::NodeState state, size_t count) {
  model::Device device;
  device.resource = model::Symbol(std::string("nvidia.com/gpu"));
  device.model = model::Symbol(std::string("A100"));
  state.devices.assign(count, device);
  return state;
}

model::ViewUpdate update(uint64_t base, std::vector<model::NodeChange> changes) {
  model::ViewUpdate u;
  u.cluster_id = "c1";
  u.epoch = 7;
  u.base_version = base;
  u.version = base + 1;
  for (model::NodeChange& change : changes) {
    u.changes.push_back(model::share(std::move(change)));
  }
  return u;
}

model::ViewSnapshot snapshot(std::vector<model::NodeState> nodes) {
  model::ViewSnapshot s;
  s.cluster_id = "c1";
  s.epoch = 7;
  s.version = 1;
  for (model::NodeState& state : nodes) {
    s.nodes.push_back(std::make_shared<const model::NodeState>(std::move(state)));
  }
  return s;
}

std::vector<std::string> names(const model::NodeAdmission::News& news) {
  std::vector<std::string> out;
  for (const model::LeftOutNode& left : news.told) {
    out.push_back(left.name);
  }
  return out;
}

bool has_control_characters(const std::string& text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return true;
    }
  }
  return false;
}

/// A cluster whose nodes the test sets: listed once, then changed by the test.
class ScriptedCluster final : public adapters::ClusterAdapter {
 public:
  explicit ScriptedCluster(std::vector<model::NodeState> nodes) : nodes_(std::move(nodes)) {
    profile_.spec.cluster_id = "c1";
  }
  std::vector<model::NodeChange> changes;
  std::string trouble_text;

  const model::ClusterResourceProfile& profile() const override { return profile_; }
  std::string trouble() const override { return trouble_text; }
  std::vector<model::NodeState> list_nodes() const override { return nodes_; }
  std::vector<model::NodeChange> poll_changes() override { return std::exchange(changes, {}); }
  model::ClusterResources resources() const override { return {}; }
  adapters::PlacementOutcome apply(const adapters::Placement&) override {
    return adapters::PlacementOutcome::NoSuchNode;
  }
  bool release(const std::string&) override { return false; }
  std::vector<std::string> running_placements() const override { return {}; }

 private:
  model::ClusterResourceProfile profile_;
  std::vector<model::NodeState> nodes_;
};

std::vector<std::string> changed_names(const model::ViewUpdate& update) {
  std::vector<std::string> out;
  for (const model::SharedNodeChange& change : update.changes) {
    out.push_back(change.node->name);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(node_admission)

BOOST_AUTO_TEST_CASE(each_unusable_record_is_named_with_its_reason) {
  BOOST_TEST(model::unusable_node(node("gpu-01.rack-3")).empty());
  BOOST_TEST(model::unusable_node(node("Node_07")).empty());  // Slurm keeps case and '_'
  BOOST_TEST(model::unusable_node(node("")).empty());  // not judged here: refused by the view
  const std::string escape = model::unusable_node(node("n\x1b[2Jx"));
  BOOST_TEST(escape.find("invalid node name: node \"n\\x1b[2Jx\"") == 0u, escape);
  BOOST_TEST(!has_control_characters(escape));
  BOOST_TEST(!model::unusable_node(node(std::string(254, 'a'))).empty());
  BOOST_TEST(!model::unusable_node(node("a..b")).empty());
  BOOST_TEST(!model::unusable_node(node("-a")).empty());
  const std::string devices =
      model::unusable_node(with_devices(node("big"), model::kMaxNodeDevices + 1));
  BOOST_TEST(devices.find("too many devices: node \"big\": 4097 devices") == 0u, devices);
  BOOST_TEST(model::unusable_node(with_devices(node("dgx"), model::kMaxNodeDevices)).empty());
  BOOST_TEST(model::unusable_node(node("full", 2000)).find("allocated exceeds allocatable") == 0u);
}

BOOST_AUTO_TEST_CASE(a_snapshot_keeps_its_usable_nodes) {
  ClusterCore state("c1");
  BOOST_TEST(state.request_resync().pull_snapshot);
  auto whole = snapshot({node("a"), node("b\x1b]0;owned\x07"),
                         with_devices(node("c"), model::kMaxNodeDevices + 1), node("d", 5000)});
  whole.left_out.push_back({"e",
                            "node \"e\": nodes[4].accelerators[0].topology_group: 40000 is "
                            "not between 0 and 32767; the node is left out"});
  const auto taken = state.on_snapshot(std::move(whole));
  BOOST_TEST(!taken.problem.has_value());
  BOOST_TEST(state.view().size() == 1u);
  BOOST_TEST(state.view().find("a") != nullptr);
  BOOST_TEST(state.nodes_left_out() == 4u);
  const auto& news = taken.effects.left_out;
  BOOST_TEST(news.told.size() == 4u);
  BOOST_TEST(news.untold == 0u);
  for (const model::LeftOutNode& left : news.told) {
    BOOST_TEST(!has_control_characters(left.reason), left.reason);
    BOOST_TEST(left.reason.find("the node is left out") != std::string::npos, left.reason);
  }
  BOOST_TEST(state.resume_resync().left_out.told.empty());  // told once
  BOOST_TEST(!state.resyncing());
}

BOOST_AUTO_TEST_CASE(a_node_leaves_the_view_while_unusable_and_comes_back) {
  ClusterCore state("c1");
  BOOST_TEST_REQUIRE((state
                          .on_update(update(0, {{NodeChangeKind::Add, node("a")},
                                                {NodeChangeKind::Add, node("b")}}))
                          .status == AckStatus::Applied));
  // b reports more in use than it has: it leaves the view, a stays.
  auto outcome = state.on_update(update(1, {{NodeChangeKind::Update, node("b", 3000)}}));
  BOOST_TEST((outcome.status == AckStatus::Applied), outcome.error);
  BOOST_TEST(state.view().find("b") == nullptr);
  BOOST_TEST(state.view().size() == 1u);
  BOOST_TEST(names(outcome.effects.left_out) == std::vector<std::string>{"b"});
  // The same state again is no news; its usage is dropped, not refused as unknown.
  model::ViewUpdate again = update(2, {{NodeChangeKind::Update, node("b", 3000)}});
  again.usage_changes.push_back(model::usage_of(node("b", 10)));
  outcome = state.on_update(again);
  BOOST_TEST((outcome.status == AckStatus::Applied));
  BOOST_TEST(outcome.effects.left_out.told.empty());
  // Its first usable state brings it back, though the agent sends it as an update.
  outcome = state.on_update(update(3, {{NodeChangeKind::Update, node("b", 500)}}));
  BOOST_TEST((outcome.status == AckStatus::Applied), outcome.error);
  BOOST_TEST_REQUIRE(state.view().find("b") != nullptr);
  BOOST_TEST(state.view().find("b")->allocated_cpu_milli == 500);
  BOOST_TEST(state.nodes_left_out() == 0u);
  // Left out again, then removed by the agent: the removal of a node not held is no error.
  state.on_update(update(4, {{NodeChangeKind::Update, node("b", 3000)}}));
  model::NodeChange removal{NodeChangeKind::Remove, node("b")};
  outcome = state.on_update(update(5, {removal}));
  BOOST_TEST((outcome.status == AckStatus::Applied), outcome.error);
  BOOST_TEST(state.nodes_left_out() == 0u);
  BOOST_TEST(state.view().size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_node_never_held_is_dropped_and_others_go_on) {
  ClusterCore state("c1");
  const std::string long_name(300, 'x');
  const auto outcome = state.on_update(update(0, {{NodeChangeKind::Add, node("good")},
                                                  {NodeChangeKind::Add, node(long_name)},
                                                  {NodeChangeKind::Add, node("bad name")}}));
  BOOST_TEST((outcome.status == AckStatus::Applied), outcome.error);
  BOOST_TEST(state.view().size() == 1u);
  const auto& news = outcome.effects.left_out;
  BOOST_TEST_REQUIRE(news.told.size() == 2u);
  BOOST_TEST(news.told[0].reason.size() < 400u);  // a huge name is cut short where it is told
}

BOOST_AUTO_TEST_CASE(news_are_bounded_and_counted) {
  model::NodeAdmission admission;
  std::vector<model::NodeState> many;
  for (size_t i = 0; i < model::NodeAdmission::kMaxNews + 10; ++i) {
    many.push_back(node("bad_" + std::to_string(i) + "_", 0));
  }
  auto whole = snapshot(std::move(many));
  admission.admit(whole);
  BOOST_TEST(whole.nodes.empty());
  const auto news = admission.take_news();
  BOOST_TEST(news.told.size() == model::NodeAdmission::kMaxNews);
  BOOST_TEST(news.untold == 10u);
  BOOST_TEST(admission.size() == model::NodeAdmission::kMaxNews + 10);
}

BOOST_AUTO_TEST_CASE(a_node_the_reader_cannot_read_is_left_out_by_name) {
  model::ViewUpdate update;
  update.cluster_id = "c1";
  update.epoch = 1;
  update.version = 1;
  update.changes.push_back(model::share({NodeChangeKind::Add, with_devices(node("gpu-1"), 2)}));
  update.changes.push_back(model::share({NodeChangeKind::Add, with_devices(node("gpu-2"), 2)}));
  v1::IncrementalUpdate wire = messages::to_proto(update);
  wire.mutable_node_deltas(1)->mutable_node()->mutable_accelerators(1)->set_topology_group(40000);
  const auto read = messages::from_proto(wire);
  BOOST_TEST_REQUIRE(read.has_value());
  BOOST_TEST(read->changes.size() == 1u);
  BOOST_TEST_REQUIRE(read->left_out.size() == 1u);
  BOOST_TEST(read->left_out[0].name == "gpu-2");
  BOOST_TEST(read->left_out[0].reason ==
             "node \"gpu-2\": node_deltas[1].node.accelerators[1].topology_group: 40000 is not "
             "between 0 and 32767; the node is left out");
  // Without a name there is nothing to leave out: the update is refused, naming the field.
  wire.mutable_node_deltas(1)->mutable_node()->clear_name();
  BOOST_TEST(!messages::from_proto(wire).has_value());

  ClusterCore state("c1");
  model::ViewUpdate taken = *messages::from_proto(messages::to_proto(update));
  BOOST_TEST_REQUIRE((state.on_update(taken).status == AckStatus::Applied));
  model::ViewUpdate next = update;
  next.base_version = 1;
  next.version = 2;
  next.changes[0].kind = NodeChangeKind::Update;
  next.changes[1].kind = NodeChangeKind::Update;
  wire = messages::to_proto(next);
  wire.mutable_node_deltas(1)->mutable_node()->mutable_accelerators(1)->set_topology_group(40000);
  const auto outcome = state.on_update(*messages::from_proto(wire));
  BOOST_TEST((outcome.status == AckStatus::Applied), outcome.error);
  BOOST_TEST(state.view().find("gpu-1") != nullptr);
  BOOST_TEST(state.view().find("gpu-2") == nullptr);  // held before: removed
  BOOST_TEST(state.nodes_left_out() == 1u);
}

// A node alone larger than a message used to cut its CAF agent off the hub ("lost the hub", every
// 2 s): the agent now leaves it out, saying how large it is, and sends the rest.
BOOST_AUTO_TEST_CASE(an_agent_leaves_out_a_node_too_large_for_a_message) {
  model::NodeState huge = node("huge");
  model::NodeLabels::Map labels;
  for (int i = 0; labels.size() * 80 < messages::kMaxNodeWireBytes + (1 << 20); ++i) {
    labels.emplace("unisched.io/label-" + std::to_string(i), std::string(60, 'v'));
  }
  huge.labels = model::NodeLabels(std::move(labels));
  auto cluster = std::make_shared<ScriptedCluster>(
      std::vector<model::NodeState>{node("a"), huge, node("bad name")});
  actors::AgentCore agent(cluster, 1);
  const auto news = agent.observe();
  const auto first = agent.next_update();
  BOOST_TEST_REQUIRE(first.has_value());
  BOOST_TEST(changed_names(*first) == std::vector<std::string>{"a"});
  BOOST_TEST_REQUIRE(news.told.size() == 2u);
  const std::string& too_large =
      news.told[0].name == "huge" ? news.told[0].reason : news.told[1].reason;
  BOOST_TEST(too_large.find("bytes as a message, more than the 4194304 a node may take") !=
                 std::string::npos,
             too_large);
  BOOST_TEST(agent.nodes_left_out() == 2u);
  // A node sent before that turns unusable is sent as removed; a usable state sends it again.
  cluster->changes = {{NodeChangeKind::Update, node("a", 5000)}};
  agent.observe();
  const auto second = agent.next_update();
  BOOST_TEST_REQUIRE(second.has_value());
  BOOST_TEST_REQUIRE(second->changes.size() == 1u);
  BOOST_TEST((second->changes[0].kind == NodeChangeKind::Remove));
  cluster->changes = {{NodeChangeKind::Update, node("a", 500)}};
  agent.observe();
  const auto third = agent.next_update();
  BOOST_TEST_REQUIRE(third.has_value());
  BOOST_TEST_REQUIRE(third->changes.size() == 1u);
  BOOST_TEST((third->changes[0].kind == NodeChangeKind::Add));
  BOOST_TEST(agent.snapshot().nodes.size() == 1u);
  // An update says what the agent's probes say of the cluster: a gRPC agent's updates used to
  // say HEALTHY while its heartbeats said UNHEALTHY.
  BOOST_TEST((third->health == model::HealthState::Healthy));
  cluster->trouble_text = "listing nodes failed (503)";
  cluster->changes = {{NodeChangeKind::Update, node("a", 600)}};
  agent.observe();
  const auto troubled = agent.next_update();
  BOOST_TEST_REQUIRE(troubled.has_value());
  BOOST_TEST((troubled->health == model::HealthState::Unhealthy));
}

BOOST_AUTO_TEST_SUITE_END()
