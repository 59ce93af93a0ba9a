// PublishedView: every change of a ClusterActor's view is one revision, kept for subscribers,
// at the agent's position it came with; a change the view refuses changes nothing.
#include "cores/published_view.hpp"

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

using unisched::actors::PublishedView;
namespace model = unisched::model;

namespace {

std::shared_ptr<const model::NodeState> node(const std::string& name, int64_t allocated_cpu = 0) {
  auto state = std::make_shared<model::NodeState>();
  state->name = name;
  state->allocatable_cpu_milli = 1000;
  state->allocated_cpu_milli = allocated_cpu;
  state->max_pods = 10;
  return state;
}

std::vector<model::SharedNodeChange> changes(model::NodeChangeKind kind,
                                             const std::vector<std::string>& names) {
  std::vector<model::SharedNodeChange> out;
  for (const std::string& name : names) {
    out.push_back({kind, node(name)});
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(published_view)

BOOST_AUTO_TEST_CASE(each_change_is_one_revision_at_the_position_it_came_with) {
  const struct {
    const char* what;
    std::vector<model::SharedNodeChange> changes;
    bool applies;
  } table[] = {
      {"a new node", changes(model::NodeChangeKind::Add, {"n2"}), true},
      {"a node changed", changes(model::NodeChangeKind::Update, {"n1"}), true},
      {"a node removed", changes(model::NodeChangeKind::Remove, {"n1"}), true},
      {"a node it does not hold", changes(model::NodeChangeKind::Update, {"n9"}), false},
      {"a node added twice", changes(model::NodeChangeKind::Add, {"n1"}), false},
  };
  for (const auto& row : table) {
    PublishedView view("c1");
    BOOST_TEST_REQUIRE(
        !view.publish(changes(model::NodeChangeKind::Add, {"n1"}), std::nullopt, {5, 1}));
    const auto problem = view.publish(row.changes, std::nullopt, {5, 2});
    BOOST_TEST(!problem.has_value() == row.applies, row.what);
    BOOST_TEST(view.revision() == (row.applies ? 2u : 1u), row.what);
    BOOST_TEST(view.position().version == (row.applies ? 2u : 1u), row.what);
    BOOST_TEST(view.changes_since(1)->size() == (row.applies ? 1u : 0u), row.what);
    BOOST_TEST(view.whole()->revision == view.revision(), row.what);
  }
}

BOOST_AUTO_TEST_CASE(a_move_without_a_change_is_no_revision) {
  PublishedView view("c1");
  view.publish(changes(model::NodeChangeKind::Add, {"n1"}), std::nullopt, {5, 1});
  view.advance({5, 2});
  BOOST_TEST(view.position().version == 2u);
  BOOST_TEST(view.revision() == 1u);
  BOOST_TEST(view.snapshot().agent_version == 2u);
  BOOST_TEST(view.snapshot().version == 1u);  // a snapshot of the view is at its revision
}

BOOST_AUTO_TEST_CASE(a_replaced_view_is_one_revision_every_node_holds_and_forgets_its_changes) {
  PublishedView view("c1");
  view.publish(changes(model::NodeChangeKind::Add, {"n1", "n2"}), std::nullopt, {5, 1});
  view.publish(changes(model::NodeChangeKind::Update, {"n1"}), std::nullopt, {5, 2});
  BOOST_TEST_REQUIRE(!view.replace({node("n2"), node("n3")}, {}, {6, 1}));
  BOOST_TEST(view.revision() == 3u);
  BOOST_TEST(view.position().epoch == 6u);
  BOOST_TEST(!view.changes_since(2).has_value());  // subscribers behind need the whole view
  const model::ViewSnapshot copied = view.snapshot();
  BOOST_TEST(copied.nodes.size() == 2u);
  BOOST_TEST(copied.node_revisions.at("n2") == 3u);
  BOOST_TEST(copied.node_revisions.at("n3") == 3u);
  BOOST_TEST(view.nodes().find("n1") == nullptr);
  // A refused replacement changes nothing.
  BOOST_TEST(view.replace({node("n4"), node("n4")}, {}, {7, 1}).has_value());
  BOOST_TEST(view.revision() == 3u);
  BOOST_TEST(view.nodes().find("n3") != nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
