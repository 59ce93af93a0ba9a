#include "simulation/simulation_run.hpp"

#include <absl/strings/str_cat.h>
#include <absl/strings/str_join.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>

#include <unistd.h>

#include "simulation/simulated_system.hpp"

namespace unisched::simulation {
namespace {

enum class Action {
  Submit,
  CrashAgent,
  StartAgent,
  CrashClusterActor,
  CrashScheduler,
  CrashCentre,
  StartCentre,
  CutOff,
  Heal
};

struct Planned {
  int64_t at_ms = 0;
  Action action = Action::Submit;
  size_t target = 0;
  std::vector<SimulatedRequest> requests;
};

/// The events of one crash or partition: when it strikes, and its restart or heal.
template <class Between, class Cluster>
void plan_fault(FaultKind kind, const RunSettings& settings, Between& between, Cluster& cluster,
                std::vector<Planned>& events) {
  const int64_t phase = settings.fault_phase.count();
  const int64_t at = between(phase / 10, phase * 8 / 10);
  switch (kind) {
    case FaultKind::Partition:
      events.push_back({at, Action::CutOff, cluster(), {}});
      events.push_back({at + between(200, 1500), Action::Heal, 0, {}});
      break;
    case FaultKind::AgentCrash: {
      const size_t target = cluster();
      events.push_back({at, Action::CrashAgent, target, {}});
      events.push_back({at + between(100, 800), Action::StartAgent, target, {}});
      break;
    }
    case FaultKind::ClusterActorCrash:
      events.push_back({at, Action::CrashClusterActor, cluster(), {}});
      break;
    case FaultKind::SchedulerCrash:
      events.push_back({at,
                        Action::CrashScheduler,
                        static_cast<size_t>(between(0, settings.schedulers - 1)),
                        {}});
      break;
    case FaultKind::HubCrash:
      events.push_back({at, Action::CrashCentre, 0, {}});
      events.push_back({at + between(50, 500), Action::StartCentre, 0, {}});
      break;
    default:
      break;
  }
}

/// The run's schedule, drawn from the seed: request batches over the first 80% of the fault
/// phase, and the crashes and partitions.
std::vector<Planned> plan(const RunSettings& settings, std::mt19937_64& random) {
  const int64_t phase = settings.fault_phase.count();
  const auto between = [&](int64_t low, int64_t high) {
    return std::uniform_int_distribution<int64_t>(low, high)(random);
  };
  const auto cluster = [&] { return static_cast<size_t>(between(0, settings.clusters - 1)); };
  std::vector<Planned> events;
  for (int next = 0; next < settings.requests;) {
    Planned batch{between(0, phase * 8 / 10), Action::Submit, 0, {}};
    for (int64_t n = between(1, 3); n > 0 && next < settings.requests; --n) {
      batch.requests.push_back(draw_request(next++, random));
    }
    events.push_back(std::move(batch));
  }
  // Each enabled crash or partition kind with even odds; at least one when no message fault
  // kind is enabled, so that every run injects something.
  std::vector<FaultKind> chosen;
  std::vector<FaultKind> enabled;
  for (FaultKind kind : {FaultKind::Partition, FaultKind::AgentCrash, FaultKind::ClusterActorCrash,
                         FaultKind::SchedulerCrash, FaultKind::HubCrash}) {
    if (settings.faults.has(kind)) {
      enabled.push_back(kind);
      if (between(0, 1) == 1) {
        chosen.push_back(kind);
      }
    }
  }
  const bool message_faults =
      settings.faults.has(FaultKind::Drop) || settings.faults.has(FaultKind::Duplicate) ||
      settings.faults.has(FaultKind::Reorder) || settings.faults.has(FaultKind::Delay);
  if (chosen.empty() && !message_faults && !enabled.empty()) {
    chosen.push_back(enabled[static_cast<size_t>(between(0, enabled.size() - 1))]);
  }
  for (FaultKind kind : chosen) {
    plan_fault(kind, settings, between, cluster, events);
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Planned& a, const Planned& b) { return a.at_ms < b.at_ms; });
  return events;
}

const char* describe(Action action) {
  switch (action) {
    case Action::Submit:
      return "submit";
    case Action::CrashAgent:
      return "crash agent";
    case Action::StartAgent:
      return "start agent";
    case Action::CrashClusterActor:
      return "crash ClusterActor";
    case Action::CrashScheduler:
      return "crash scheduler";
    case Action::CrashCentre:
      return "crash centre";
    case Action::StartCentre:
      return "start centre";
    case Action::CutOff:
      return "cut off agent";
    case Action::Heal:
      return "heal";
  }
  return "?";
}

void carry_out(SimulatedSystem& system, const Planned& event, FaultCounts& faults) {
  if (event.action != Action::Submit) {
    spdlog::debug("simulation: t={}ms {} {}", system.now_ms(), describe(event.action),
                  event.target);
  }
  switch (event.action) {
    case Action::Submit:
      system.submit(event.requests);
      break;
    case Action::CrashAgent:
      if (system.agent_running(event.target)) {
        system.crash_agent(event.target);
        ++faults[FaultKind::AgentCrash];
      }
      break;
    case Action::StartAgent:
      if (!system.agent_running(event.target)) {
        system.start_agent(event.target);
      }
      break;
    case Action::CrashClusterActor:
      system.crash_cluster_actor(event.target);
      ++faults[FaultKind::ClusterActorCrash];
      break;
    case Action::CrashScheduler:
      if (system.crash_scheduler(event.target)) {
        ++faults[FaultKind::SchedulerCrash];
      }
      break;
    case Action::CrashCentre:
      system.crash_centre();
      ++faults[FaultKind::HubCrash];
      break;
    case Action::StartCentre:
      system.start_centre();
      break;
    case Action::CutOff:
      system.cut_off(event.target);
      ++faults[FaultKind::Partition];
      break;
    case Action::Heal:
      system.heal_all();
      break;
  }
}

/// At rest: every accepted request decided, none whose placements the hub still checks, no
/// work due to end, every view at its agent's version.
bool at_rest(SimulatedSystem& system) {
  if (system.finite_work_running() > 0) {
    return false;
  }
  const auto list = system.requests();
  if (!list || list->reconciling() > 0) {
    return false;
  }
  for (const v1::RequestStatus& status : list->requests()) {
    if (status.phase() == v1::RequestStatus::PENDING ||
        status.phase() == v1::RequestStatus::QUEUED) {
      return false;
    }
  }
  return system.views_caught_up();
}

/// After the run: a small request pinned to each cluster is placed within 5 s. A system that
/// keeps every invariant can still have stopped placing work (a resync once left node-level
/// commits nothing to compare with, and each such commit conflicted until it was given up).
void check_still_places(SimulatedSystem& system) {
  std::vector<SimulatedRequest> probes;
  for (size_t cluster = 0; cluster < system.clusters(); ++cluster) {
    probes.push_back(probe_request(system.cluster_id(cluster)));
  }
  system.submit(probes);
  const auto placed = [](const v1::RequestStatus& status) {
    return status.phase() == v1::RequestStatus::PLACED ||
           status.phase() == v1::RequestStatus::FINISHED;
  };
  std::map<std::string, v1::RequestStatus> last;
  const int64_t until = system.now_ms() + 5000;
  while (system.now_ms() < until) {
    system.step(std::chrono::milliseconds(10));
    if (system.now_ms() % 250 != 0) {
      continue;
    }
    if (const auto list = system.requests()) {
      for (const v1::RequestStatus& status : list->requests()) {
        last[status.request_id()] = status;
      }
    }
    if (std::all_of(probes.begin(), probes.end(), [&](const SimulatedRequest& probe) {
          const auto found = last.find(probe.name);
          return found != last.end() && placed(found->second);
        })) {
      return;
    }
  }
  for (const SimulatedRequest& probe : probes) {
    const auto found = last.find(probe.name);
    if (found == last.end() || !placed(found->second)) {
      system.observer().violation(absl::StrCat(
          "after the faults, ", probe.name, " was not placed within 5 s: ",
          found == last.end()
              ? std::string("not in the book")
              : absl::StrCat(v1::RequestStatus::Phase_Name(found->second.phase()), " ",
                             found->second.detail(), " ",
                             absl::StrJoin(found->second.decision().reasons(), "; "))));
    }
  }
}

void run_in(const RunSettings& settings, const std::string& journal, RunReport& report) {
  std::mt19937_64 random(settings.seed);
  std::vector<Planned> events = plan(settings, random);
  SimulatedSystem system(settings, journal, report);
  system.start();
  system.set_faults_on(true);
  const auto step = std::chrono::milliseconds(10);
  size_t next = 0;
  while (system.now_ms() < settings.fault_phase.count()) {
    system.step(step);
    for (; next < events.size() && events[next].at_ms <= system.now_ms(); ++next) {
      carry_out(system, events[next], report.faults);
    }
  }
  // The faults stop: restarts and heals still planned happen now, held messages arrive.
  system.set_faults_on(false);
  for (; next < events.size(); ++next) {
    carry_out(system, events[next], report.faults);
  }
  system.heal_all();
  system.release_held();
  // At rest at every check for 1.5 s: what an agent observed but has not pushed yet (it pushes
  // every 50 ms) has then arrived, and the hub has asked every cluster what it holds (every
  // second in the simulation) and found nothing to release.
  const int64_t settle_until = system.now_ms() + settings.settle_limit.count();
  constexpr int64_t kRestMs = 1500;
  int64_t rested_since = -1;  // -1 while not at rest
  while (system.now_ms() < settle_until) {
    system.step(step);
    if (system.now_ms() % 250 == 0) {
      if (!at_rest(system)) {
        rested_since = -1;
      } else if (rested_since < 0) {
        rested_since = system.now_ms();
      } else if (system.now_ms() - rested_since >= kRestMs) {
        report.settled = true;
        break;
      }
    }
  }
  if (!report.settled) {
    system.observer().violation(absl::StrCat("the system did not come to rest within ",
                                             settings.settle_limit.count(), " ms"));
  }
  system.final_checks();
  if (report.settled) {
    check_still_places(system);
  }
  if (report.faults.total() == 0) {
    system.observer().violation("no fault was injected");
  }
  const Observer& observer = system.observer();
  report.violations = observer.violations();
  report.accepted = system.accepted().size();
  report.placements_applied = observer.applied();
  report.refused_for_room = observer.refused_for_room();
  report.checks = observer.checks();
  report.deliveries = system.deliveries();
  report.digest = system.digest();
}

}  // namespace

RunReport run_simulation(const RunSettings& settings) {
  RunReport report;
  report.seed = settings.seed;
  namespace fs = std::filesystem;
  const fs::path dir =
      settings.work_dir.empty() ? fs::temp_directory_path() : fs::path(settings.work_dir);
  const fs::path journal =
      dir / absl::StrCat("unisched-simulate-", ::getpid(), "-", settings.seed, ".journal");
  fs::remove(journal);
  run_in(settings, journal.string(), report);
  fs::remove(journal);
  return report;
}

std::string replay_command(const RunSettings& settings) {
  return absl::StrCat(
      "unisched simulate --runs 1 --seed ", settings.seed, " --faults ",
      settings.faults.to_string(), " --clusters ", settings.clusters, " --schedulers ",
      settings.schedulers, " --requests ", settings.requests,
      settings.in_flight > 1 ? absl::StrCat(" --in-flight ", settings.in_flight) : "");
}

}  // namespace unisched::simulation
