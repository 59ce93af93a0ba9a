// The actor system's workers: one per hardware thread, and no worker held by an actor that waits
// on the world outside (an agent whose adapter's calls block runs on a thread of its own).
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "actors/agent_actor.hpp"
#include "adapters/cluster_adapter.hpp"
#include "tests/actor_harness.hpp"
#include "tests/simulation_fixtures.hpp"

namespace unisched {
namespace {

/// Shut until opened: what a cluster that does not answer looks like to its adapter's callers.
struct Gate {
  std::mutex mutex;
  std::condition_variable opened_cv;
  bool opened = false;
  std::atomic<int> waiting{0};

  void wait() {
    ++waiting;
    std::unique_lock<std::mutex> lock(mutex);
    opened_cv.wait(lock, [&] { return opened; });
  }
  void open() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      opened = true;
    }
    opened_cv.notify_all();
  }
};

/// An adapter whose every observation waits at `gate`, as a call to an API server that hangs.
class HangingCluster final : public adapters::ClusterAdapter {
 public:
  explicit HangingCluster(std::shared_ptr<Gate> gate)
      : profile_(testing::small_profile("hanging")), gate_(std::move(gate)) {}

  const model::ClusterResourceProfile& profile() const override { return profile_; }
  std::vector<model::NodeState> list_nodes() const override { return {}; }
  std::vector<model::NodeChange> poll_changes() override { return {}; }
  model::ClusterResources resources() const override { return {}; }
  adapters::PlacementOutcome apply(const adapters::Placement&) override {
    return adapters::PlacementOutcome::Applied;
  }
  std::vector<adapters::LaterOutcome> poll_outcomes() override {
    gate_->wait();
    return {};
  }
  bool release(const std::string&) override { return false; }
  std::vector<std::string> running_placements() const override { return {}; }
  bool calls_block() const override { return true; }

 private:
  model::ClusterResourceProfile profile_;
  std::shared_ptr<Gate> gate_;
};

caf::behavior echo() {
  return {[](int value) { return value; }};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker_pool)

BOOST_AUTO_TEST_CASE(one_worker_per_hardware_thread) {
  testing::ActorHarness harness;
  BOOST_TEST(harness.system->scheduler().num_workers() == std::thread::hardware_concurrency());
}

BOOST_AUTO_TEST_CASE(agents_whose_adapters_block_hold_no_worker) {
  testing::ActorHarness harness;
  // One hanging agent more than there are workers: on the workers, the last could not even
  // start its observation, and nothing else would run.
  const int agents = static_cast<int>(harness.system->scheduler().num_workers()) + 1;
  auto gate = std::make_shared<Gate>();
  std::vector<actors::LocalAgentActor> hanging;
  const caf::actor responsive = harness.system->spawn(echo);
  // Also when a check fails: hanging agents would keep the system from shutting down.
  struct Release {
    Gate& gate;
    std::vector<actors::LocalAgentActor>& agents;
    const caf::actor& responsive;
    ~Release() {
      gate.open();
      for (const auto& agent : agents) {
        caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
      }
      caf::anon_send_exit(responsive, caf::exit_reason::user_shutdown);
    }
  } release{*gate, hanging, responsive};
  for (int i = 0; i < agents; ++i) {
    hanging.push_back(actors::spawn_agent_actor(
        *harness.system, std::make_shared<HangingCluster>(gate), static_cast<uint64_t>(i + 1), {}));
  }
  testing::ActorHarness::wait_until([&] { return gate->waiting.load() == agents; },
                                    "every agent waiting in its adapter at once");
  BOOST_TEST(harness.ask<int>(responsive, 42) == 42);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace unisched
