// Where a scheduler's undecided requests wait: the keys of SchedulerSummary's
// undecided_by_reason, named once for the scheduler that counts them and the metrics that
// expose every one of them (zero included).
#pragma once

#include <array>

namespace unisched {

inline constexpr const char* kUndecidedQueued = "queued";  ///< never decided yet
/// Back in the queue after a conflict, or waiting for the views a conflict asked for.
inline constexpr const char* kUndecidedRetrying = "retrying";
inline constexpr const char* kUndecidedCommitting = "committing";  ///< its commit round is out
inline constexpr const char* kUndecidedWaitingForQuota = "waiting for quota";

inline constexpr std::array<const char*, 4> kUndecidedReasons{
    kUndecidedQueued, kUndecidedRetrying, kUndecidedCommitting, kUndecidedWaitingForQuota};

}  // namespace unisched
