// send_until_acknowledged: a message is asked again until its receiver acknowledges it or the
// tries are spent, the receiver looked up anew for each try.
#include "actors/until_acknowledged.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/sec.hpp>

#include <boost/test/unit_test.hpp>
#include <memory>
#include <optional>

#include "messages/caf_types.hpp"
#include "tests/deterministic_system.hpp"

using unisched::actors::AckRetry;
using unisched::actors::send_until_acknowledged;
namespace v1 = unisched::v1;

namespace {

/// A receiver that refuses its first `refusals` asks, then acknowledges; counts the asks.
caf::behavior refusing_receiver(caf::event_based_actor*, int refusals, std::shared_ptr<int> asked) {
  return {[=](const v1::ReleaseOrder&) -> caf::result<v1::Ack> {
    if (++*asked <= refusals) {
      return caf::make_error(caf::sec::runtime_error);
    }
    return v1::Ack{};
  }};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(until_acknowledged)

BOOST_AUTO_TEST_CASE(a_message_is_asked_again_until_acknowledged_or_the_tries_are_spent) {
  struct Case {
    const char* what;
    int refusals;
    int tries;
    bool receiver_known;
    int asked;
    bool acknowledged;
  };
  const Case cases[] = {
      {"acknowledged at once", 0, 3, true, 1, true},
      {"acknowledged at the last try", 2, 3, true, 3, true},
      {"never acknowledged: the tries end it", 5, 3, true, 3, false},
      {"no receiver now: nothing is sent", 0, 3, false, 0, false},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      unisched::testing::DeterministicSystem system;
      auto asked = std::make_shared<int>(0);
      auto acknowledged = std::make_shared<int>(0);
      const caf::actor receiver = system.system->spawn(refusing_receiver, c.refusals, asked);
      const bool known = c.receiver_known;
      system.system->spawn([=](caf::event_based_actor* self) {
        v1::ReleaseOrder order;
        order.set_cluster_id("a");
        send_until_acknowledged(
            self, order, AckRetry{c.tries, std::chrono::milliseconds(100)},
            [=](const v1::ReleaseOrder&) {
              return known ? std::optional<caf::actor>{receiver} : std::nullopt;
            },
            [=](const v1::ReleaseOrder& acked) {
              BOOST_TEST(acked.cluster_id() == "a");
              ++*acknowledged;
            });
      });
      system.advance(std::chrono::seconds(1));
      BOOST_TEST(*asked == c.asked);
      BOOST_TEST(*acknowledged == (c.acknowledged ? 1 : 0));
      caf::anon_send_exit(receiver, caf::exit_reason::user_shutdown);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
