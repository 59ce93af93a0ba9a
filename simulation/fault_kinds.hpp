// The faults a simulation run injects, by kind: what `unisched simulate --faults` names and what
// its summary counts. Plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace unisched::simulation {

enum class FaultKind {
  Drop,               ///< a message on a link between processes is lost
  Duplicate,          ///< ... delivered twice
  Reorder,            ///< ... overtaken by the next message on its link
  Delay,              ///< ... held for up to the delay limit
  Partition,          ///< an agent cut off from the centre, healed later
  AgentCrash,         ///< an agent killed and started again with a new epoch
  ClusterActorCrash,  ///< a ClusterActor killed (the supervisor restarts it)
  SchedulerCrash,     ///< a scheduler killed (its work must not vanish)
  HubCrash,           ///< the centre killed and started again from its journal
};

inline constexpr size_t kFaultKinds = 9;

inline constexpr std::array<std::string_view, kFaultKinds> kFaultNames = {
    "drop",        "duplicate",           "reorder",         "delay",    "partition",
    "agent-crash", "cluster-actor-crash", "scheduler-crash", "hub-crash"};

inline std::string_view name(FaultKind kind) {
  return kFaultNames[static_cast<size_t>(kind)];
}

inline std::optional<FaultKind> fault_named(std::string_view text) {
  for (size_t i = 0; i < kFaultKinds; ++i) {
    if (kFaultNames[i] == text) {
      return static_cast<FaultKind>(i);
    }
  }
  return std::nullopt;
}

/// A count per kind (injected, or enabled as 0/1).
struct FaultCounts {
  std::array<uint64_t, kFaultKinds> by_kind{};

  uint64_t& operator[](FaultKind kind) { return by_kind[static_cast<size_t>(kind)]; }
  uint64_t operator[](FaultKind kind) const { return by_kind[static_cast<size_t>(kind)]; }
  uint64_t total() const {
    uint64_t sum = 0;
    for (uint64_t count : by_kind) {
      sum += count;
    }
    return sum;
  }
  FaultCounts& operator+=(const FaultCounts& other) {
    for (size_t i = 0; i < kFaultKinds; ++i) {
      by_kind[i] += other.by_kind[i];
    }
    return *this;
  }
};

/// Which kinds a run may inject: every kind unless a list names some.
struct FaultSet {
  std::array<bool, kFaultKinds> enabled{true, true, true, true, true, true, true, true, true};

  bool has(FaultKind kind) const { return enabled[static_cast<size_t>(kind)]; }

  /// A comma-separated list of kind names ("all" for every kind); nullopt and `error` set when a
  /// name is unknown.
  static std::optional<FaultSet> parse(const std::string& list, std::string& error);
  /// The kinds' names, comma-separated; "all" for every kind unless `spelled_out`.
  std::string to_string(bool spelled_out = false) const;
};

}  // namespace unisched::simulation
