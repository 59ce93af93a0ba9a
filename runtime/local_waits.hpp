// How long a driver outside the centre's actors (run, replay, the workload client, a verb's
// metrics page) waits for an actor in its own process to answer. Each wait is named so a
// caller can lengthen one (a loaded machine, a long trace) without reading the code; none of
// them changes what is decided, only when a driver stops waiting and reports the silence.
#pragma once

#include <chrono>

namespace unisched::runtime {

struct LocalWaits {
  /// A summary, snapshot part, definition or quota listing: answered at once unless stuck.
  std::chrono::milliseconds answer{2'000};
  /// The workload's progress line: short, so a busy client never stalls the progress output.
  std::chrono::milliseconds progress{1'000};
  /// A cluster's registration with the supervisor.
  std::chrono::milliseconds registration{5'000};
  /// Every cluster healthy after start-up (their first snapshots taken).
  std::chrono::milliseconds clusters_healthy{10'000};
  /// A whole cluster view, or a scheduler's summary: a scheduler far behind answers late, as
  /// its queue is what is asked for.
  std::chrono::milliseconds large_answer{10'000};
  /// The workload client's closing report, which waits for every scheduler's summary.
  std::chrono::milliseconds closing_report{15'000};
  /// One trace pod's decision, queued behind the pods submitted before it.
  std::chrono::milliseconds decision{60'000};
  /// How often a driver looks again while it waits for a condition.
  std::chrono::milliseconds poll{50};
};

}  // namespace unisched::runtime
