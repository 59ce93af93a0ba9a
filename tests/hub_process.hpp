// A hub (`unisched serve`) as a child process on loopback, and what tests do with it: start
// agents and shards beside it, run client verbs against it, read its views.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/actor_harness.hpp"
#include "tests/certificates.hpp"
#include "tests/child_process.hpp"
#include "tests/json.hpp"

namespace unisched::testing {

inline const std::string kBinary = UNISCHED_BINARY;
inline const std::string kProfiles = std::string(UNISCHED_SOURCE_DIR) + "/config/profiles/";

/// A loopback port nothing listens on right now.
inline uint16_t free_port() {
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(probe);
  return ntohs(address.sin_port);
}

/// Whether process `pid` holds an established IPv4 TCP connection to local port `port`: its
/// socket inodes (/proc/PID/fd) against the connections in /proc/net/tcp.
inline bool connected_to_port(pid_t pid, uint16_t port) {
  std::set<std::string> inodes;
  std::istringstream table(read_file("/proc/net/tcp"));
  std::string line;
  std::getline(table, line);  // header
  char remote_port[8];
  std::snprintf(remote_port, sizeof(remote_port), ":%04X", port);
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
        timeout >> inode;
    if (state == "01" && remote.size() > 5 && remote.substr(remote.size() - 5) == remote_port) {
      inodes.insert("socket:[" + inode + "]");
    }
  }
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  std::error_code ignored;
  for (const auto& fd : std::filesystem::directory_iterator(fds, ignored)) {
    if (inodes.count(std::filesystem::read_symlink(fd.path(), ignored).string()) > 0) {
      return true;
    }
  }
  return false;
}

/// The HOST:PORT a child printed as "listening on HOST:PORT", once it has.
inline std::string wait_for_listening(const ChildProcess& process, const std::string& what) {
  ActorHarness::wait_until(
      [&] { return process.output().find("listening on 127.0.0.1:") != std::string::npos; },
      what + " listening", std::chrono::seconds(10));
  const std::string log = process.output();
  const size_t at = log.find("listening on ") + 13;
  return log.substr(at, log.find('\n', at) - at);
}

/// The HOST:PORT a child started with --grpc printed as "gRPC serving on HOST:PORT".
inline std::string printed_grpc_address(const ChildProcess& process) {
  const std::string marker = "gRPC serving on ";
  const std::string log = process.output();
  const size_t at = log.find(marker);
  BOOST_TEST_REQUIRE(at != std::string::npos, log);
  const size_t start = at + marker.size();
  return log.substr(start, log.find('\n', start) - start);
}

/// A hub on a loopback port (a free one unless given).
struct Hub {
  ScratchDirectory dir;
  std::unique_ptr<ChildProcess> process;
  std::string address;
  std::vector<std::string> serve_flags;

  explicit Hub(uint16_t port = 0, std::vector<std::string> flags = {})
      : serve_flags(std::move(flags)) {
    start(port);
  }

  void start(uint16_t port) {
    std::vector<std::string> args = {kBinary, "serve", "--listen",
                                     "127.0.0.1:" + std::to_string(port)};
    args.insert(args.end(), serve_flags.begin(), serve_flags.end());
    process = std::make_unique<ChildProcess>(args, dir.path() + "/hub.log");
    address = wait_for_listening(*process, "the hub");
  }

  /// Runs `unisched ARGS --hub ADDRESS`; its exit status and its output (stdout then stderr).
  /// Several may run at once, from different threads.
  std::pair<int, std::string> client(const std::string& args) const {
    static std::atomic<int> calls{0};
    const std::string name = dir.path() + "/client-" + std::to_string(++calls);
    const std::string out = name + ".out";
    const std::string err = name + ".err";
    const int status = std::system(
        (kBinary + " " + args + " --hub " + address + " >" + out + " 2>" + err).c_str());
    std::pair<int, std::string> result{WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                                       read_file(out) + read_file(err)};
    std::remove(out.c_str());
    std::remove(err.c_str());
    return result;
  }

  /// `unisched get WHAT -o json`, parsed by a JSON parser; null when the call failed or did not
  /// print JSON.
  Json get(const std::string& what) const {
    const auto [status, output] = client("get " + what + " -o json");
    const Json parsed = status == 0 ? parse_json(output) : Json();
    return parsed.is_discarded() ? Json() : parsed;
  }

  Json clusters() const {
    const Json list = get("clusters");
    return list.is_object() && list.contains("clusters") ? list["clusters"] : Json();
  }

  /// The entry of cluster `id`, when the hub lists it.
  std::optional<Json> cluster(const std::string& id) const {
    const Json list = clusters();
    if (!list.is_array()) {
      return std::nullopt;
    }
    for (const auto& entry : list) {
      if (text(entry, "id") == id) {
        return entry;
      }
    }
    return std::nullopt;
  }

  /// Per node of `cluster` as the hub holds it: allocated cpu and the models of its devices.
  std::map<std::string, std::pair<int64_t, std::multiset<std::string>>> node_view(
      const std::string& cluster) const {
    std::map<std::string, std::pair<int64_t, std::multiset<std::string>>> view;
    const Json views = get("nodes --cluster " + cluster);
    if (!views.is_object() || views["clusters"].empty()) {
      return view;
    }
    for (const auto& node : views["clusters"][0]["nodes"]) {
      auto& entry = view[text(node, "name")];
      entry.first = number(node, "allocated_cpu_milli");
      for (const auto& device : node.value("accelerators", Json::array())) {
        entry.second.insert(text(device, "model"));
      }
    }
    return view;
  }

  /// The hub's decision of `request` (`get decisions -o json`); null when there is none.
  Json decision(const std::string& request) const {
    const Json decisions = get("decisions");
    for (const auto& decided : decisions.value("decisions", Json::array())) {
      if (decided.value("request_id", "") == request) {
        return decided;
      }
    }
    return Json();
  }

  /// The nodes the hub's decision of `request` holds replicas on.
  std::multiset<std::string> decided_nodes(const std::string& request) const {
    std::multiset<std::string> nodes;
    const Json decided = decision(request);
    for (const auto& replica : decided.is_object() ? decided["replicas"] : Json::array()) {
      nodes.insert(replica.value("node", ""));
    }
    return nodes;
  }

  /// Whether the hub lists cluster `id` with this health.
  bool has_health(const std::string& id, bool healthy) const {
    const auto entry = cluster(id);
    return entry && entry->value("healthy", false) == healthy;
  }

  std::unique_ptr<ChildProcess> agent(const std::string& profile, const std::string& extra = "",
                                      const std::string& push_interval = "100ms") {
    std::vector<std::string> args = {kBinary,           "agent",      "--hub",
                                     address,           "--profile",  kProfiles + profile,
                                     "--push-interval", push_interval};
    if (!extra.empty()) {
      args.push_back("--cluster");
      args.push_back(extra);
    }
    return std::make_unique<ChildProcess>(args, dir.path() + "/agent-" + profile + extra + ".log");
  }

  std::unique_ptr<ChildProcess> shard(const std::string& id) {
    auto process = std::make_unique<ChildProcess>(
        std::vector<std::string>{kBinary, "shard", "--hub", address, "--id", id},
        dir.path() + "/shard-" + id + ".log");
    wait_for_listening(*process, "shard " + id);
    return process;
  }
};

}  // namespace unisched::testing
