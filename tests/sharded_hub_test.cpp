// The whole deployment as separate processes on loopback: a hub, two shards, several agents and
// a client. Agents and shards are killed with SIGKILL; the views must converge to their agents'
// state, nothing may be over-committed, and requests must keep being placed.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <future>
#include <map>
#include <set>

#include "tests/hub_process.hpp"

using unisched::testing::ActorHarness;
using unisched::testing::ChildProcess;
using unisched::testing::free_port;
using unisched::testing::Hub;
using unisched::testing::Json;
using unisched::testing::number;
using unisched::testing::text;

namespace {

const std::string kRequests = std::string(UNISCHED_SOURCE_DIR) + "/config/requests/examples.yaml";

/// The entries under `key` of a client's JSON answer; none when the client failed (a slow or
/// restarting process), so that a caller polling it asks again.
Json entries(const Json& answer, const std::string& key) {
  return answer.is_object() ? answer.value(key, Json::array()) : Json::array();
}

/// cluster_id -> shard_id ("" for the hub), from `get nodes -o json`.
std::map<std::string, std::string> homes(const Hub& hub) {
  std::map<std::string, std::string> out;
  const Json views = hub.get("nodes");
  for (const auto& home : entries(views, "homes")) {
    out[text(home, "cluster_id")] = text(home, "shard_id");
  }
  return out;
}

uint16_t port_of(const std::string& address) {
  return static_cast<uint16_t>(std::stoi(address.substr(address.rfind(':') + 1)));
}

/// Nodes whose allocations exceed what they have, and devices above 1000 milli: must be none.
std::vector<std::string> overcommits(const Json& views) {
  BOOST_TEST_REQUIRE(views.is_object(), "no views to check for over-commits");
  std::vector<std::string> found;
  for (const auto& cluster : entries(views, "clusters")) {
    for (const auto& node : cluster.value("nodes", Json::array())) {
      const std::string name = text(node, "name");
      if (number(node, "allocated_cpu_milli") > number(node, "allocatable_cpu_milli") ||
          number(node, "allocated_memory_bytes") > number(node, "allocatable_memory_bytes")) {
        found.push_back(name);
      }
      for (const auto& device : node.value("accelerators", Json::array())) {
        if (number(device, "allocated_milli") > 1000) {
          found.push_back(name + " device");
        }
      }
    }
  }
  return found;
}

/// The nodes of one cluster as canonical text keyed by name, and the position they are at.
struct ClusterCore {
  int64_t epoch = 0;
  int64_t version = 0;
  std::map<std::string, std::string> nodes;
};

ClusterCore state_of(const Json& views, bool agent_position) {
  ClusterCore state;
  for (const auto& cluster : entries(views, "clusters")) {
    state.epoch = number(cluster, "epoch");
    state.version = number(cluster, agent_position ? "agent_version" : "version");
    for (const auto& node : cluster.value("nodes", Json::array())) {
      // nlohmann::json keeps object keys sorted, so protobuf's map order does not matter.
      state.nodes[text(node, "name")] = node.dump();
    }
  }
  return state;
}

/// True when the hub's view of `cluster` equals its agent's own state at the same position.
/// The two are read at once, from two clients; a push between the two reads makes this false
/// once, and the caller asks again.
bool matches_agent(const Hub& hub, const std::string& cluster) {
  auto agent_read = std::async(std::launch::async, [&] {
    return state_of(hub.get("nodes --from agent --cluster " + cluster), false);
  });
  const ClusterCore view = state_of(hub.get("nodes --cluster " + cluster), true);
  const ClusterCore agent = agent_read.get();
  return !agent.nodes.empty() && agent.epoch == view.epoch && agent.version == view.version &&
         agent.nodes == view.nodes;
}

/// The line of `text` that holds `needle` (empty when none does).
std::string line_with(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  if (at == std::string::npos) {
    return "";
  }
  const size_t start = text.rfind('\n', at);
  const size_t end = text.find('\n', at);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end == std::string::npos ? std::string::npos : end - start - 1);
}

/// A hub with two shards and five clusters' agents, each cluster's ClusterActor on a shard.
struct ShardedFleet {
  Hub hub;
  std::unique_ptr<ChildProcess> s1 = hub.shard("s1");
  std::unique_ptr<ChildProcess> s2 = hub.shard("s2");
  std::map<std::string, std::unique_ptr<ChildProcess>> agents;
  std::set<std::string> live;  // clusters whose agent runs

  ShardedFleet() {
    // Pushing every second leaves time to read a view and its agent's state at one version.
    agents["t4-useast"] = hub.agent("t4-vm-useast.yaml", "", "1s");
    agents["a100-uswest"] = hub.agent("a100-nvlink-uswest.yaml", "", "1s");
    agents["h100-euwest"] = hub.agent("h100-euwest.yaml", "", "1s");
    agents["cpu-apsouth"] = hub.agent("cpu-baremetal-apsouth.yaml", "", "1s");
    agents["t4-useast-2"] = hub.agent("t4-vm-useast.yaml", "t4-useast-2", "1s");
    for (const auto& [id, agent] : agents) {
      live.insert(id);
    }
  }

  bool all_healthy() {
    return std::all_of(live.begin(), live.end(),
                       [&](const std::string& id) { return hub.has_health(id, true); });
  }

  /// Each try reads the agent and the view through two clients at once; a push between the two
  /// reads makes it miss, and on a loaded machine the clients are slow, so it may take tries.
  void expect_views_match_agents(const std::string& when) {
    for (const std::string& id : live) {
      ActorHarness::wait_until([&] { return matches_agent(hub, id); },
                               id + "'s view equal to its agent's state " + when,
                               std::chrono::seconds(60));
    }
  }

  /// Kills the shard hosting live clusters (s1 if any) and waits until they are all re-homed on
  /// the other and healthy; returns the survivor's process.
  ChildProcess& kill_a_shard() {
    std::set<std::string> on_s1;
    for (const auto& [cluster, shard] : homes(hub)) {
      if (shard == "s1" && live.count(cluster) > 0) {
        on_s1.insert(cluster);
      }
    }
    const bool kill_s1 = !on_s1.empty();
    const std::string survivor = kill_s1 ? "s2" : "s1";
    BOOST_TEST((kill_s1 ? s1 : s2)->stop(SIGKILL) == -SIGKILL);
    ActorHarness::wait_until(
        [&] {
          const auto now = homes(hub);
          for (const std::string& id : live) {
            const auto home = now.find(id);
            if (home == now.end() || home->second != survivor) {
              return false;
            }
          }
          return all_healthy();
        },
        "every live cluster re-homed on " + survivor + " and healthy", std::chrono::seconds(30));
    return kill_s1 ? *s2 : *s1;
  }
};

/// A request's placed replicas as `get requests` lists them (an empty array when none).
Json replicas_of(const Json& request) {
  return request.value("decision", Json::object()).value("replicas", Json::array());
}

/// The hub's requests (`get requests`) by name.
std::map<std::string, Json> requests_by_name(const Json& listing) {
  std::map<std::string, Json> out;
  for (const auto& request : listing["requests"]) {
    out.emplace(text(request, "request_id"), request);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sharded_hub)

BOOST_AUTO_TEST_CASE(views_converge_and_placement_goes_on_after_an_agent_and_a_shard_die) {
  ShardedFleet fleet;
  Hub& hub = fleet.hub;
  const std::string s1_address = unisched::testing::wait_for_listening(*fleet.s1, "s1");
  const std::string s2_address = unisched::testing::wait_for_listening(*fleet.s2, "s2");
  ActorHarness::wait_until([&] { return fleet.all_healthy(); }, "every cluster healthy",
                           std::chrono::seconds(30));
  // Every ClusterActor lives on a shard, not on the hub.
  const std::map<std::string, std::string> where = homes(hub);
  BOOST_TEST(where.size() == fleet.agents.size());
  for (const auto& [cluster, shard] : where) {
    BOOST_TEST((shard == "s1" || shard == "s2"), cluster << " on \"" << shard << "\"");
  }
  fleet.expect_views_match_agents("at first");
  // Each agent holds its own connection to its shard: updates do not pass through the hub.
  const std::map<std::string, uint16_t> shard_ports = {{"s1", port_of(s1_address)},
                                                       {"s2", port_of(s2_address)}};
  for (const auto& [cluster, shard] : where) {
    ActorHarness::wait_until(
        [&, shard = shard, cluster = cluster] {
          return unisched::testing::connected_to_port(fleet.agents[cluster]->pid(),
                                                      shard_ports.at(shard));
        },
        cluster + "'s agent connected to " + shard + " directly", std::chrono::seconds(10));
  }

  // The client's requests are decided; how much of each fits depends on the simulated churn.
  // The gang of 8-GPU replicas fits only the A100 cluster, and only while four of its nodes have
  // no background pod on a GPU: the longer the fleet takes to start (a loaded machine), the
  // fewer do (when none has 8 free GPUs, the fit filter already says so). Either way it is
  // decided there, whole or not at all.
  const auto [submitted, decisions] =
      hub.client("submit -f " + kRequests + " --wait --timeout 30s");
  const std::string refused = line_with(decisions, "llm-pretrain unschedulable - ");
  BOOST_TEST((decisions.find("llm-pretrain placed: 4 replicas") != std::string::npos ||
              refused.find("a100-uswest: ") != std::string::npos),
             decisions);
  BOOST_TEST(decisions.find("unknown") == std::string::npos, decisions);

  // An agent dies: its cluster turns unhealthy, the others stay healthy.
  BOOST_TEST(fleet.agents["t4-useast-2"]->stop(SIGKILL) == -SIGKILL);
  fleet.live.erase("t4-useast-2");
  ActorHarness::wait_until([&] { return hub.has_health("t4-useast-2", false); },
                           "the killed agent's cluster unhealthy", std::chrono::seconds(20));

  // A shard dies: its clusters move to the other shard and are rebuilt from full snapshots.
  ChildProcess& survivor = fleet.kill_a_shard();
  fleet.expect_views_match_agents("after the shard died");
  BOOST_TEST(hub.process->output().find("re-homing") != std::string::npos);

  // Placement goes on, and nothing is over-committed anywhere.
  const std::string more = hub.dir.write(
      "more.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: "
      "after-the-shard\nspec:\n  replicas: 3\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n");
  const auto [again, decided] = hub.client("submit -f " + more + " --wait --timeout 30s");
  BOOST_TEST(again == 0, decided);
  BOOST_TEST(decided.find("after-the-shard placed: 3 replicas") != std::string::npos, decided);
  const auto problems = overcommits(hub.get("nodes"));
  BOOST_TEST(problems.empty(), "over-committed: " << problems.size());

  for (auto& [id, agent] : fleet.agents) {
    if (fleet.live.count(id) > 0) {
      BOOST_TEST(agent->stop() == 0, id);
    }
  }
  BOOST_TEST(survivor.stop() == 0, survivor.output());
  BOOST_TEST(hub.process->stop() == 0, hub.process->output());
}

BOOST_AUTO_TEST_CASE(decisions_survive_a_hub_crash_through_the_journal) {
  const uint16_t port = free_port();
  unisched::testing::ScratchDirectory state;
  Hub hub(port, {"--journal", state.path() + "/requests.journal"});
  auto agent = hub.agent("a100-nvlink-uswest.yaml");
  ActorHarness::wait_until([&] { return hub.has_health("a100-uswest", true); }, "registered",
                           std::chrono::seconds(20));
  // How much of each request fits depends on the simulated churn (the 8-GPU gang needs four
  // nodes without a background pod on a GPU); whatever was decided is what must survive.
  const auto [placed, decision] = hub.client("submit -f " + kRequests + " --wait --timeout 30s");
  const auto before = requests_by_name(hub.get("requests"));
  BOOST_REQUIRE_EQUAL(before.size(), 4u);
  BOOST_TEST(text(before.at("matchmaking-api"), "phase") == "PLACED", decision);
  BOOST_TEST(hub.process->stop(SIGKILL) == -SIGKILL);
  hub.start(port);
  auto after = requests_by_name(hub.get("requests"));
  BOOST_REQUIRE_EQUAL(after.size(), 4u);
  for (const auto& [name, request] : before) {
    BOOST_TEST(text(after[name], "phase") == text(request, "phase"),
               name << ": " << request.dump() << " then " << after[name].dump());
    BOOST_TEST(replicas_of(after[name]) == replicas_of(request),
               name << ": " << request.dump() << " then " << after[name].dump());
    if (text(request, "phase") == "PLACED") {
      BOOST_TEST(after[name].value("recovered", false), name);
    }
  }
  // The name stays taken; the agent comes back and new work is placed.
  const auto [duplicate, refusal] = hub.client("submit -f " + kRequests);
  BOOST_TEST(duplicate == 1);
  BOOST_TEST(refusal.find("already accepted (" + text(before.at("llm-pretrain"), "phase") + ")") !=
                 std::string::npos,
             refusal);
  ActorHarness::wait_until([&] { return hub.has_health("a100-uswest", true); },
                           "the agent back at the restarted hub", std::chrono::seconds(30));
  const std::string more = hub.dir.write(
      "more.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: "
      "after-the-crash\nspec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n");
  const auto [again, decided] = hub.client("submit -f " + more + " --wait --timeout 30s");
  BOOST_TEST(again == 0, decided);
  BOOST_TEST(agent->stop() == 0);
  BOOST_TEST(hub.process->stop() == 0, hub.process->output());
}

BOOST_AUTO_TEST_CASE(submitted_manifests_are_validated_at_the_hub) {
  Hub hub;
  const std::string mixed = hub.dir.write(
      "mixed.yaml",
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: fine\n"
      "spec:\n  replicas: 1\n  resources:\n    cpu: \"1\"\n    memory: 1Gi\n---\n"
      "apiVersion: scheduling.cluster.io/v1\nkind: SchedulingRequest\nmetadata:\n  name: broken\n"
      "spec:\n  replicas: 1\n  resources:\n    cpu: lots\n    memory: 1Gi\n");
  const auto [status, output] = hub.client("submit -f " + mixed);
  BOOST_TEST(status == 1);
  BOOST_TEST(output.find("schedulingrequest/fine created") != std::string::npos, output);
  BOOST_TEST(output.find(mixed + ":18: document 1 (SchedulingRequest/broken): "
                                 "spec.resources.cpu") != std::string::npos,
             output);
  const std::string garbage = hub.dir.write("garbage.yaml", "{{{ not yaml\n\x01\x02");
  BOOST_TEST(hub.client("submit -f " + garbage).first == 1);
  // Applying a profile declares the cluster before any agent registers it.
  const auto [applied, applied_out] =
      hub.client("apply -f " + unisched::testing::kProfiles + "h100-euwest.yaml");
  BOOST_TEST(applied == 0, applied_out);
  BOOST_TEST(hub.cluster("h100-euwest").has_value());
  BOOST_TEST(hub.has_health("h100-euwest", false));
  // The requests list holds only the valid one (decided: there was no cluster to place it on).
  const auto requests = hub.get("requests")["requests"];
  BOOST_REQUIRE_EQUAL(requests.size(), 1u);
  BOOST_TEST(text(requests[0], "request_id") == "fine");
  const auto [unknown, message] = hub.client("describe cluster nowhere");
  BOOST_TEST(unknown == 3);  // not found: the code crossed the link, not only the text
  BOOST_TEST(message.find("no cluster") != std::string::npos, message);
  BOOST_TEST(hub.process->stop() == 0, hub.process->output());
}

BOOST_AUTO_TEST_CASE(only_shards_with_their_own_token_are_admitted) {
  unisched::testing::ScratchDirectory dir;
  const std::string cluster_tokens = dir.write("clusters", "t4-useast 0123456789abcdef0123\n");
  const std::string shard_tokens = dir.write("shards", "shard-a aaaaaaaaaaaaaaaaaaaa\n");
  const auto shard = [&](Hub& hub, const std::string& id, const std::string& token) {
    std::vector<std::string> args = {
        unisched::testing::kBinary, "shard", "--hub", hub.address, "--id", id};
    if (!token.empty()) {
      args.insert(args.end(), {"--token", token});
    }
    return std::make_unique<ChildProcess>(args, dir.path() + "/shard-" + id + token + ".log");
  };
  {
    // Cluster tokens without shard tokens: no shard holds a cluster's view.
    Hub hub(0, {"--cluster-tokens", cluster_tokens});
    auto rogue = shard(hub, "rogue", "");
    ActorHarness::wait_until([&] { return rogue->output().find("refused") != std::string::npos; },
                             "the rogue shard refused", std::chrono::seconds(20));
    BOOST_TEST(rogue->stop(0) == 1, rogue->output());
    BOOST_TEST(rogue->output().find("admits shards only with tokens") != std::string::npos,
               rogue->output());
    BOOST_TEST(hub.process->stop() == 0, hub.process->output());
  }
  Hub hub(0, {"--cluster-tokens", cluster_tokens, "--shard-tokens", shard_tokens});
  auto rogue = shard(hub, "rogue", "aaaaaaaaaaaaaaaaaaaa");       // a known token, not its own
  auto impostor = shard(hub, "shard-a", "bbbbbbbbbbbbbbbbbbbb");  // a known id, a wrong token
  auto anonymous = shard(hub, "shard-a", "");
  for (auto* refused : {rogue.get(), impostor.get(), anonymous.get()}) {
    ActorHarness::wait_until([&] { return refused->output().find("refused") != std::string::npos; },
                             "a shard refused", std::chrono::seconds(20));
    BOOST_TEST(refused->stop(0) == 1, refused->output());
  }
  BOOST_TEST(rogue->output().find("no token is configured for shard") != std::string::npos);
  BOOST_TEST(impostor->output().find("wrong token for shard") != std::string::npos);
  BOOST_TEST(anonymous->output().find("presented no token") != std::string::npos);
  auto admitted = shard(hub, "shard-a", "aaaaaaaaaaaaaaaaaaaa");
  ActorHarness::wait_until(
      [&] { return hub.process->output().find("shard shard-a joined") != std::string::npos; },
      "shard-a admitted", std::chrono::seconds(20));
  ChildProcess agent(
      {unisched::testing::kBinary, "agent", "--hub", hub.address, "--profile",
       unisched::testing::kProfiles + "t4-vm-useast.yaml", "--token", "0123456789abcdef0123"},
      dir.path() + "/agent.log");
  ActorHarness::wait_until([&] { return homes(hub)["t4-useast"] == "shard-a"; },
                           "the cluster hosted on the admitted shard", std::chrono::seconds(30));
  BOOST_TEST(hub.process->output().find("shard rogue joined") == std::string::npos);
  BOOST_TEST(agent.stop() == 0);
  BOOST_TEST(admitted->stop() == 0);
  BOOST_TEST(hub.process->stop() == 0, hub.process->output());
}

BOOST_AUTO_TEST_SUITE_END()
