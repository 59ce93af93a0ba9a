// Moving a snapshot in parts between actors (actors/snapshot_transfer.hpp): a transfer whose
// actor ends before the answer comes frees everything it holds. Its steps once held themselves,
// so a pull from an agent that had gone silent outlived the ClusterActor that started it (found
// by LeakSanitizer at the hub's exit after a shard was lost).
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include <boost/test/unit_test.hpp>
#include <memory>
#include <vector>

#include "actors/snapshot_transfer.hpp"
#include "tests/actor_harness.hpp"

using unisched::testing::ActorHarness;
namespace v1 = unisched::v1;

namespace {

/// Takes snapshot requests and snapshot parts and never answers them; says how many it holds.
struct SilentPeer {
  std::vector<caf::response_promise> unanswered;
  static inline const char* name = "silent_peer";
};

caf::behavior silent_peer(caf::stateful_actor<SilentPeer>* self) {
  return {
      [=](const v1::SnapshotRequest&) {
        self->state.unanswered.push_back(self->make_response_promise());
      },
      [=](unisched::atoms::push_atom, const v1::ClusterSnapshot&) {
        self->state.unanswered.push_back(self->make_response_promise());
      },
      [=](unisched::atoms::summary_atom) {
        return static_cast<uint64_t>(self->state.unanswered.size());
      },
  };
}

/// Spawns an actor that starts `transfer` towards `peer`, passing it a callback that holds
/// `token`; returns it once the transfer has asked.
template <class Transfer>
caf::actor start_transfer(ActorHarness& harness, const caf::actor& peer, std::shared_ptr<int> token,
                          Transfer transfer) {
  return harness.system->spawn([=](caf::event_based_actor* self) -> caf::behavior {
    transfer(self, peer, [token](const auto&) {});
    return {[](int) {}};
  });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(snapshot_transfer)

BOOST_AUTO_TEST_CASE(transfers_cut_off_by_their_actors_end_free_what_they_hold) {
  ActorHarness harness;
  const caf::actor peer = harness.system->spawn(silent_peer);
  auto pull_token = std::make_shared<int>(1);
  auto push_token = std::make_shared<int>(2);
  const std::weak_ptr<int> pull_watch = pull_token;
  const std::weak_ptr<int> push_watch = push_token;
  const auto hour = caf::timespan{std::chrono::hours(1)};
  const caf::actor puller = start_transfer(
      harness, peer, std::move(pull_token), [hour](auto self, const caf::actor& to, auto done) {
        v1::SnapshotRequest first;
        first.set_reason("test");
        unisched::actors::pull_snapshot_parts<v1::ClusterSnapshot>(self, to, hour, first,
                                                                   std::move(done));
      });
  const caf::actor pusher = start_transfer(
      harness, peer, std::move(push_token), [hour](auto self, const caf::actor& to, auto done) {
        std::vector<v1::ClusterSnapshot> parts(2);
        unisched::actors::push_snapshot_parts(self, to, hour, std::move(parts), std::move(done));
      });
  // Both are waiting for the silent peer while their actors live.
  ActorHarness::wait_until(
      [&] { return harness.try_ask<uint64_t>(peer, unisched::atoms::summary_atom_v) == 2u; },
      "both transfers waiting for the silent peer");
  BOOST_TEST(!pull_watch.expired());
  BOOST_TEST(!push_watch.expired());
  caf::anon_send_exit(puller, caf::exit_reason::kill);
  caf::anon_send_exit(pusher, caf::exit_reason::kill);
  caf::anon_send_exit(peer, caf::exit_reason::kill);  // so that the system can stop either way
  ActorHarness::wait_until([&] { return pull_watch.expired(); }, "the pull's state freed");
  ActorHarness::wait_until([&] { return push_watch.expired(); }, "the push's state freed");
}

BOOST_AUTO_TEST_SUITE_END()
