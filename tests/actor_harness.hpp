// An actor system for tests, with bounded waiting: every wait gives up after a deadline and
// fails the test instead of hanging.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "actors/actor_types.hpp"
#include "messages/caf_types.hpp"
#include "runtime/network.hpp"
#include "tests/eventually.hpp"

namespace unisched::testing {

struct ActorHarness {
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;

  ActorHarness() {
    actors::configure_actor_system(config);
    system = std::make_unique<caf::actor_system>(config);
  }

  struct Networked {};
  /// With CAF's middleman, as a process that publishes actors or reaches remote ones has.
  explicit ActorHarness(Networked) : system(runtime::make_networked_system(config, {})) {
    BOOST_TEST_REQUIRE(bool(system));
  }

  /// Asks `target`; nullopt on an error or after 2 s, scaled (for polling through restarts).
  template <class Reply, class Handle, class... Ts>
  std::optional<Reply> try_ask(const Handle& target, Ts&&... xs) {
    caf::scoped_actor self{*system};
    std::optional<Reply> reply;
    self->request(target, scaled(std::chrono::seconds(2)), std::forward<Ts>(xs)...)
        .receive(
            [&](Reply& r) { reply = std::move(r); },
            [&](caf::error& error) { BOOST_TEST_MESSAGE("request failed: " << to_string(error)); });
    return reply;
  }

  /// Asks `target` and returns the reply, failing the test on an error or after 2 s.
  template <class Reply, class Handle, class... Ts>
  Reply ask(const Handle& target, Ts&&... xs) {
    auto reply = try_ask<Reply>(target, std::forward<Ts>(xs)...);
    BOOST_TEST_REQUIRE(reply.has_value());
    return std::move(*reply);
  }

  /// Polls `condition` every 10 ms until it holds; fails the test after `limit`.
  static void wait_until(const std::function<bool()>& condition, const std::string& what,
                         std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    eventually(condition, what, limit);
  }
};

}  // namespace unisched::testing
