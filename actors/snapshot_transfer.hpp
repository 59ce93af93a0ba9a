// Moving a snapshot that may be in parts (messages/snapshot_parts) between actors: pushed part
// by part, each once the receiver took the one before (Ack PART_TAKEN), or pulled part by part
// (SnapshotRequest.part). At most one part of a snapshot is in flight, so no message grows with
// the cluster. Used by the agent, the ClusterActor, the supervisor and the gRPC agent proxy.
#pragma once

#include <caf/expected.hpp>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "messages/caf_types.hpp"
#include "messages/errors.hpp"
#include "messages/snapshot_parts.hpp"

namespace unisched::actors {

/// Sends `parts` (one whole snapshot, or its parts in order) to `receiver` as (push, part);
/// `done` receives the Ack of the last part, or the refusal or error that stopped the push.
template <class Self, class Receiver, class Part, class Done>
void push_snapshot_parts(Self self, Receiver receiver, caf::timespan timeout,
                         std::vector<Part> parts, Done on_done) {
  auto done = std::make_shared<Done>(std::move(on_done));  // may be a mutable callable
  auto remaining = std::make_shared<std::vector<Part>>(std::move(parts));
  auto next = std::make_shared<size_t>(0);
  // Each pending request holds the step that sends the next part; the step holds itself only
  // weakly, so a request that never completes (its actor ended first) frees it all.
  auto send_next = std::make_shared<std::function<void()>>();
  *send_next = [=, weak_step = std::weak_ptr<std::function<void()>>(send_next)] {
    const auto step = weak_step.lock();
    Part part = std::move((*remaining)[(*next)++]);
    self->request(receiver, timeout, atoms::push_atom_v, std::move(part))
        .then(
            [=](v1::Ack& ack) {
              if (ack.status() == v1::Ack::PART_TAKEN && *next < remaining->size()) {
                (*step)();
              } else if (ack.status() == v1::Ack::PART_TAKEN) {
                (*done)(caf::expected<v1::Ack>(
                    messages::make_error(messages::Error::InvalidArgument,
                                         "the receiver still waits for parts after the last")));
              } else {
                (*done)(caf::expected<v1::Ack>(std::move(ack)));
              }
            },
            [=](caf::error& error) { (*done)(caf::expected<v1::Ack>(std::move(error))); });
  };
  (*send_next)();
}

/// Asks `agent` for its snapshot with `first` (part 0), then for each later part, each
/// answered as a Part (v1::ClusterSnapshot or messages::AgentSnapshot); `done` receives the
/// whole snapshot, or the error that stopped the pull (a part no longer kept or refused: its
/// reason as InvalidArgument; no answer within `timeout`).
template <class Part, class Self, class Agent, class Done>
void pull_snapshot_parts(Self self, Agent agent, caf::timespan timeout, v1::SnapshotRequest first,
                         Done on_done) {
  using Assembler = messages::BasicSnapshotAssembler<Part>;
  using Whole = typename Assembler::Whole;
  auto done = std::make_shared<Done>(std::move(on_done));  // may be a mutable callable
  auto parts = std::make_shared<Assembler>();
  // As in push_snapshot_parts: the step holds itself weakly, the pending request strongly.
  using Step = std::function<void(v1::SnapshotRequest)>;
  auto ask = std::make_shared<Step>();
  *ask = [=, weak_step = std::weak_ptr<Step>(ask)](v1::SnapshotRequest request) {
    const auto step = weak_step.lock();
    *request.mutable_cluster() = first.cluster();
    request.set_reason(first.reason());
    self->request(agent, timeout, std::move(request))
        .then(
            [=](Part& part) {
              auto taken = parts->add(std::move(part));
              if (taken && !taken.value()) {
                (*step)(parts->next_request());
                return;
              }
              caf::expected<Whole> result =
                  taken ? caf::expected<Whole>(std::move(*taken.value()))
                        : caf::expected<Whole>(messages::make_error(
                              messages::Error::InvalidArgument, taken.error()));
              (*done)(result);
            },
            [=](caf::error& error) {
              caf::expected<Whole> result(std::move(error));
              (*done)(result);
            });
  };
  (*ask)(std::move(first));
}

}  // namespace unisched::actors
