#include "tools/bench/etcd/etcd_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

#include "tools/bench/etcd/etcd_kv.hpp"
#include "tools/bench/fixtures.hpp"

namespace unisched::bench {
namespace {

/// A port no one listens on now: bound to port 0 and released (etcd takes it just after).
int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  if (fd >= 0) {
    ::close(fd);
  }
  return port;
}

}  // namespace

EtcdServer::EtcdServer(bool in_memory)
    : dir_(
          (in_memory ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) /
          ("unisched-bench-etcd-" + std::to_string(::getpid()))) {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
  std::filesystem::create_directories(dir_ / "data");
  start();
}

void EtcdServer::start() {
  const int client = free_loopback_port();
  const int peer = free_loopback_port();
  if (client == 0 || peer == 0) {
    problem_ = "no free loopback port";
    return;
  }
  endpoint_ = "127.0.0.1:" + std::to_string(client);
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer);
  std::vector<std::string> args = {"/usr/bin/etcd",
                                   "--name=unisched-bench",
                                   "--data-dir=" + (dir_ / "data").string(),
                                   "--listen-client-urls=http://" + endpoint_,
                                   "--advertise-client-urls=http://" + endpoint_,
                                   "--listen-peer-urls=" + peer_url,
                                   "--initial-advertise-peer-urls=" + peer_url,
                                   "--initial-cluster=unisched-bench=" + peer_url,
                                   "--logger=zap",
                                   "--log-level=warn"};
  pid_ = spawn_logged(std::move(args), dir_ / "etcd.log");
  if (pid_ == 0) {
    problem_ = "cannot start /usr/bin/etcd (Debian's etcd-server; tools/dev.sh build installs it)";
  }
}

std::string EtcdServer::wait_until_ready() {
  if (!problem_.empty()) {
    return "";
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  EtcdKv kv(endpoint_);
  while (!kv.ready()) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      problem_ = "etcd exited: " + read_text(dir_ / "etcd.log");
      return "";
    }
    if (std::chrono::steady_clock::now() > deadline) {
      problem_ = "etcd did not answer within 30 s: " + read_text(dir_ / "etcd.log");
      return "";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return endpoint_;
}

EtcdServer::~EtcdServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace unisched::bench
