// The supervisor's lifecycle rules without actors (cores/supervisor_core): table-driven runs
// of probe answers and misses, resyncs, lost and returning agents, restarted ClusterActors.
#include "cores/supervisor_core.hpp"

#include <boost/test/unit_test.hpp>

using namespace unisched;
using actors::Lifecycle;
using actors::SupervisorCommand;
using actors::SupervisorCommands;
using actors::SupervisorCore;
using Kind = SupervisorCommand::Kind;

namespace {

enum class Event {
  Answer,
  Trouble,
  Miss,
  ResyncDone,
  ResyncFailed,
  AgentLost,
  AgentReturned,
  Restarted
};

SupervisorCommands apply(SupervisorCore& core, Event event) {
  const std::string id = "a";
  switch (event) {
    case Event::Answer:
      return core.on_probe_answer(id, {1, 7});
    case Event::Trouble:  // answered UNHEALTHY: the agent cannot see its cluster
      return core.on_probe_answer(id, {1, 7}, "listing nodes failed (503)");
    case Event::Miss:
      return core.on_probe_miss(id);
    case Event::ResyncDone:
      return core.on_resync_done(id, 7);
    case Event::ResyncFailed:
      return core.on_resync_failed(id, "timeout");
    case Event::AgentLost:
      return core.on_agent_lost(id, "killed");
    case Event::AgentReturned:
      return core.on_agent_returned(id);
    case Event::Restarted:
      return core.on_cluster_actor_restarted(id);
  }
  return {};
}

/// The commands of `commands` other than transitions, as short words.
std::vector<std::string> actions(const SupervisorCommands& commands) {
  std::vector<std::string> out;
  for (const auto& command : commands) {
    switch (command.kind) {
      case Kind::Transition:
        break;
      case Kind::ReportPosition:
        out.push_back("position");
        break;
      case Kind::Resync:
        out.push_back(command.position ? "resync-at" : "resync-full");
        break;
      case Kind::SetHealth:
        out.push_back(command.healthy ? "healthy" : "unhealthy");
        break;
    }
  }
  return out;
}

struct Step {
  Event event;
  Lifecycle after;
  std::vector<std::string> actions;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(supervisor_core)

BOOST_AUTO_TEST_CASE(lifecycles_follow_the_rules) {
  using L = Lifecycle;
  const std::vector<std::pair<const char*, std::vector<Step>>> runs = {
      {"a new cluster is checked at its agent's position, then healthy",
       {{Event::Answer, L::Resyncing, {"position", "resync-at"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}}}},
      {"one miss makes it suspect, an answer healthy again",
       {{Event::Answer, L::Resyncing, {"position", "resync-at"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}},
        {Event::Miss, L::Suspect, {}},
        {Event::Answer, L::Healthy, {"position"}}}},
      {"three misses make it unhealthy; its return is a full resync",
       {{Event::Answer, L::Resyncing, {"position", "resync-at"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}},
        {Event::Miss, L::Suspect, {}},
        {Event::Miss, L::Suspect, {}},
        {Event::Miss, L::Unhealthy, {"unhealthy"}},
        {Event::Miss, L::Unhealthy, {}},
        {Event::Answer, L::Resyncing, {"position", "resync-full"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}}}},
      {"a failed resync leaves it unhealthy until the next answer",
       {{Event::Answer, L::Resyncing, {"position", "resync-at"}},
        {Event::ResyncFailed, L::Unhealthy, {}},
        {Event::Answer, L::Resyncing, {"position", "resync-full"}}}},
      {"a lost agent's cluster takes no work; its return registers it again",
       {{Event::Answer, L::Resyncing, {"position", "resync-at"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}},
        {Event::AgentLost, L::Lost, {"unhealthy"}},
        {Event::Miss, L::Lost, {}},
        {Event::ResyncDone, L::Lost, {}},  // a late resync must not revive it
        {Event::AgentReturned, L::Registering, {}},
        {Event::Answer, L::Resyncing, {"position", "resync-at"}}}},
      {"an agent that cannot see its cluster makes it unhealthy; seeing it again, a full resync",
       {{Event::Answer, L::Resyncing, {"position", "resync-at"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}},
        {Event::Trouble, L::Unhealthy, {"position", "unhealthy"}},
        {Event::Trouble, L::Unhealthy, {"position"}},
        {Event::Miss, L::Unhealthy, {}},
        {Event::Answer, L::Resyncing, {"position", "resync-full"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}}}},
      {"trouble at registration keeps a new cluster out",
       {{Event::Trouble, L::Unhealthy, {"position", "unhealthy"}},
        {Event::Answer, L::Resyncing, {"position", "resync-full"}}}},
      {"a restarted ClusterActor is rebuilt in full",
       {{Event::Answer, L::Resyncing, {"position", "resync-at"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}},
        {Event::Restarted, L::Resyncing, {"resync-full"}},
        {Event::ResyncDone, L::Healthy, {"healthy"}}}},
  };
  for (const auto& [name, steps] : runs) {
    SupervisorCore core(3);
    BOOST_TEST_REQUIRE(core.add("a"));
    BOOST_TEST(!core.add("a"));
    for (size_t i = 0; i < steps.size(); ++i) {
      const SupervisorCommands commands = apply(core, steps[i].event);
      BOOST_TEST((core.state("a") == steps[i].after), name << ", step " << i);
      BOOST_TEST(actions(commands) == steps[i].actions, name << ", step " << i);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_transition_is_reported_once_with_its_reason) {
  SupervisorCore core(1);
  core.add("a");
  const SupervisorCommands commands = core.on_probe_miss("a");  // registering: one miss is enough
  BOOST_TEST_REQUIRE(commands.size() == 2u);
  BOOST_TEST((commands[0].kind == Kind::Transition));
  BOOST_TEST((commands[0].from == Lifecycle::Registering));
  BOOST_TEST((commands[0].to == Lifecycle::Unhealthy));
  BOOST_TEST(commands[0].why == "1 probes unanswered");
  BOOST_TEST(core.to_probe() == std::vector<std::string>{"a"});
  core.on_agent_lost("a", "gone");
  BOOST_TEST(core.to_probe().empty());  // lost clusters are not probed
  BOOST_TEST(core.on_probe_answer("nobody", {1, 1}).empty());
}

BOOST_AUTO_TEST_CASE(homes_move_only_the_lost_shards_clusters) {
  BOOST_TEST(!SupervisorCore::choose_home({}, "a").has_value());
  const std::set<std::string> three = {"s1", "s2", "s3"};
  std::map<std::string, std::string> before;
  for (int i = 0; i < 60; ++i) {
    const std::string cluster = "c" + std::to_string(i);
    before[cluster] = *SupervisorCore::choose_home(three, cluster);
  }
  std::set<std::string> used;
  for (const auto& [cluster, home] : before) {
    used.insert(home);
    const auto after = *SupervisorCore::choose_home({"s1", "s3"}, cluster);
    if (home != "s2") {
      BOOST_TEST(after == home, cluster);  // only s2's clusters move
    }
  }
  BOOST_TEST(used.size() == 3u);  // spread over every shard
}

BOOST_AUTO_TEST_CASE(a_registration_is_judged_by_who_registers_and_where_the_cluster_stands) {
  using Admission = SupervisorCore::Admission;
  struct Case {
    const char* what;
    bool known;
    bool agent_lost;
    bool agent_returned;
    bool same_agent;
    bool running;
    Admission admission;
  };
  const Case cases[] = {
      {"a new cluster", false, false, false, false, false, Admission::New},
      {"its agent again, answer lost", true, false, false, true, true, Admission::BindAgain},
      {"another agent of a live cluster", true, false, false, false, true,
       Admission::AlreadyRegistered},
      {"a new agent after the old one exited", true, true, false, false, true, Admission::Readmit},
      {"the old agent's run again after it exited", true, true, false, true, true,
       Admission::Readmit},
      {"its ClusterActor is moving to a new home", true, true, false, false, false,
       Admission::BeingRehomed},
      {"readmitted: live again", true, true, true, false, true, Admission::AlreadyRegistered},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      SupervisorCore core(3);
      if (c.known) {
        core.add("a");
        core.on_probe_answer("a", {1, 1});
      }
      if (c.agent_lost) {
        core.on_agent_lost("a", "gone");
      }
      if (c.agent_returned) {
        core.on_agent_returned("a");
      }
      BOOST_TEST((core.admission("a", c.same_agent, c.running) == c.admission));
    }
  }
  // An agent gone while its ClusterActor restarted: the lifecycle moved on, the agent did not.
  SupervisorCore core(3);
  core.add("a");
  core.on_agent_lost("a", "gone");
  core.on_cluster_actor_restarted("a");
  BOOST_TEST((core.state("a") != Lifecycle::Lost));
  BOOST_TEST((core.admission("a", false, true) == SupervisorCore::Admission::Readmit));
}

BOOST_AUTO_TEST_CASE(a_shard_that_fails_is_dropped_and_the_next_home_is_chosen) {
  SupervisorCore core(3);
  BOOST_TEST(!core.home_of("a").has_value());  // no shard: the supervisor's own node
  BOOST_TEST(core.add_shard("s1"));
  BOOST_TEST(core.add_shard("s2"));
  BOOST_TEST(!core.add_shard("s1"));
  const std::string first = *core.home_of("a");
  core.drop_shard(first);
  const std::string second = *core.home_of("a");
  BOOST_TEST(second != first);
  core.drop_shard(second);
  BOOST_TEST(!core.home_of("a").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
