// An actor system for actor tests that runs only when told, on a virtual clock (CAF's
// test_coordinator): messages are handled in the order they were sent, timers fire only when
// the test advances time, and nothing depends on how fast or loaded the machine is. A test
// therefore asks exactly what happens after which messages and how much virtual time.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "actors/actor_types.hpp"

namespace unisched::testing {

struct DeterministicSystem {
  /// Virtual: an ask that gets no answer ends with an error once the clock has moved this far.
  static constexpr std::chrono::seconds kAskTimeout{10};

  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  caf::scheduler::test_coordinator* coordinator = nullptr;

  DeterministicSystem() {
    actors::configure_actor_system(config);
    config.set("scheduler.policy", caf::atom("testing"));
    system = std::make_unique<caf::actor_system>(config);
    coordinator = &dynamic_cast<caf::scheduler::test_coordinator&>(system->scheduler());
  }
  /// Lets the exits the test sent (and asks still waiting for a timeout) play out: the system
  /// waits for every actor as it shuts down, and only run() moves them.
  ~DeterministicSystem() {
    run();
    coordinator->trigger_timeouts();
    run();
  }
  DeterministicSystem(const DeterministicSystem&) = delete;
  DeterministicSystem& operator=(const DeterministicSystem&) = delete;

  /// Handles every message until none is left; the clock stands still.
  void run() { coordinator->run(); }

  /// Moves the virtual clock on by `step`, fires the timers that fell due, and runs.
  void advance(std::chrono::milliseconds step) {
    coordinator->advance_time(step);
    run();
  }

  /// Runs, then advances the clock in `step`s until `condition` holds; false (and a failed
  /// check naming `what`) when it does not within `limit` of virtual time.
  bool run_until(const std::function<bool()>& condition, const std::string& what,
                 std::chrono::milliseconds limit = std::chrono::seconds(60),
                 std::chrono::milliseconds step = std::chrono::milliseconds(10)) {
    run();
    for (auto waited = std::chrono::milliseconds(0); !condition(); waited += step) {
      if (waited >= limit) {
        BOOST_ERROR(what << ": not within " << limit.count() << " ms of virtual time");
        return false;
      }
      advance(step);
    }
    return true;
  }

  /// Asks `target` from an actor of this system and runs until the answer is in; nullopt on an
  /// error or when nothing answers without the clock moving.
  template <class Reply, class Handle, class... Ts>
  std::optional<Reply> try_ask(const Handle& target, Ts... xs) {
    auto reply = std::make_shared<std::optional<Reply>>();
    system->spawn([=](caf::event_based_actor* self) {
      self->request(target, kAskTimeout, xs...)
          .then([=](Reply& answer) { *reply = std::move(answer); },
                [](caf::error& error) {
                  BOOST_TEST_MESSAGE("request failed: " << to_string(error));
                });
    });
    run();
    return *reply;
  }

  /// As try_ask(), failing the test when there is no answer.
  template <class Reply, class Handle, class... Ts>
  Reply ask(const Handle& target, Ts... xs) {
    auto reply = try_ask<Reply>(target, xs...);
    BOOST_TEST_REQUIRE(reply.has_value());
    return std::move(*reply);
  }
};

}  // namespace unisched::testing
