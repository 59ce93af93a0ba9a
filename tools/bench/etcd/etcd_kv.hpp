// A client of etcd's KV service (its v3 gRPC API) with what the side-by-side benchmark does:
// puts, and compare-and-set on a key's mod_revision in a Txn, as Kubernetes binds through etcd.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace unisched::bench {

class EtcdKv {
 public:
  /// One gRPC channel of its own to `endpoint` (host:port).
  explicit EtcdKv(const std::string& endpoint);
  ~EtcdKv();
  EtcdKv(const EtcdKv&) = delete;
  EtcdKv& operator=(const EtcdKv&) = delete;

  /// Whether etcd answers a read within 500 ms.
  bool ready();
  /// Puts every pair, up to 128 in one Txn (etcd's default limit of operations per Txn).
  bool put_all(const std::vector<std::pair<std::string, std::string>>& pairs, std::string& error);
  /// One put, as a node's status update would be written.
  bool put(const std::string& key, const std::string& value, std::string& error);
  /// The mod_revision of `key` (0 when it does not exist).
  int64_t revision(const std::string& key, std::string& error);

  enum class Cas { Committed, Conflict, Failed };
  /// Writes `value` if `key` was last modified at `revision` (a Txn comparing its
  /// mod_revision); either way `revision` becomes the key's mod_revision afterwards.
  Cas compare_and_put(const std::string& key, int64_t& revision, const std::string& value,
                      std::string& error);

 private:
  struct Stub;
  std::unique_ptr<Stub> stub_;
};

}  // namespace unisched::bench
