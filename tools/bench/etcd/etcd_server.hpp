// A real etcd (Debian's etcd-server) for one benchmark run: started on loopback on free ports
// with its data in a temporary directory, stopped by pid and its directory removed when destroyed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace unisched::bench {

class EtcdServer {
 public:
  /// With `in_memory`, the data directory is on tmpfs (/dev/shm): etcd still calls fsync on
  /// every commit, but it costs nothing there. Etcd 3.4 has no flag that turns fsync off.
  explicit EtcdServer(bool in_memory);
  ~EtcdServer();
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  /// host:port of its client endpoint once it answers; empty with problem() set when it does
  /// not within 30 s.
  std::string wait_until_ready();
  const std::string& problem() const { return problem_; }

 private:
  void start();

  std::filesystem::path dir_;
  std::string endpoint_;
  pid_t pid_ = 0;
  std::string problem_;
};

}  // namespace unisched::bench
