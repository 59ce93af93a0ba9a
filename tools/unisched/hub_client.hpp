// What the client verbs (apply, submit, get, describe) share: the --hub and TLS flags, a
// connection to the hub, and printing a protobuf message as JSON.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/hub_interface.hpp"
#include "tools/unisched/cli.hpp"

namespace google::protobuf {
class Message;
}

namespace unisched::cli {

/// --hub and the TLS flags.
std::vector<Flag> hub_client_flags();

struct HubConnection {
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  runtime::HubActor hub;
  /// A listing or description: the hub answers from memory, or asks a cluster's agent.
  std::chrono::milliseconds answer_wait{10'000};
  /// One manifest file's submission: the hub journals every document before it answers.
  std::chrono::milliseconds submission_wait{30'000};
};

/// Connects to the hub named by --hub (default 127.0.0.1:4242); prints why not and returns null.
std::unique_ptr<HubConnection> connect_to_hub(const ParsedArgs& args);

/// The message as JSON (field names in lowerCamelCase, as protobuf prints them).
std::string to_json(const google::protobuf::Message& message);

/// The contents of `path` ("-" for standard input), or nullopt after printing why not.
std::optional<std::string> read_input(const std::string& path);

}  // namespace unisched::cli
