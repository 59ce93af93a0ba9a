// The one way an actor sends a message that must arrive: a request per try, each waiting a
// while for its Ack, a bounded number of tries. The receiver is looked up again for every try
// (a scheduler's ClusterActor may be replaced between tries), and the lookup may keep the
// message for later when there is no receiver now.
#pragma once

#include <caf/error.hpp>

#include <chrono>
#include <optional>
#include <utility>

#include "messages/unisched.pb.h"

namespace unisched::actors {

/// How often, and how patiently, a message is sent until acknowledged.
struct AckRetry {
  int tries = 10;
  std::chrono::milliseconds wait{1000};  ///< for each try's Ack
};

/// Sends `message` until an Ack comes or `retry.tries` are spent. `receiver(message)` names the
/// actor of this try, or nullopt when there is none now (the try, and those after it, end);
/// `acknowledged(message)` runs once, on the Ack.
template <class Self, class Message, class Receiver, class Acknowledged>
void send_until_acknowledged(Self self, Message message, AckRetry retry, Receiver receiver,
                             Acknowledged acknowledged) {
  const auto to = receiver(message);
  if (!to) {
    return;
  }
  self->request(*to, retry.wait, message)
      .then([=](v1::Ack&) { acknowledged(message); },
            [=](caf::error&) {
              if (retry.tries > 1) {
                send_until_acknowledged(self, message, AckRetry{retry.tries - 1, retry.wait},
                                        receiver, acknowledged);
              }
            });
}

}  // namespace unisched::actors
