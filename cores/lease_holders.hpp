// The leases the quota ledger granted (cores/quota_admission): who holds each, of which queue,
// and whether it was asked back. One lease per holder and queue; each is asked back once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace unisched::actors {

/// The ledger wants this lease back from its holder.
struct QuotaRevocation {
  std::string holder;
  std::string lease_id;
};

class LeaseHolders {
 public:
  /// An id for the next lease: "lease#1", "lease#2", ...
  std::string next_id() { return "lease#" + std::to_string(++issued_); }
  void grant(const std::string& id, const std::string& holder, const std::string& queue);
  bool holds(const std::string& holder, const std::string& queue) const {
    return by_holder_.count({holder, queue}) > 0;
  }
  /// Asks back every lease of a queue `in_group` selects, each once.
  std::vector<QuotaRevocation> revoke(const std::function<bool(const std::string&)>& in_group);
  /// The leases `holder` holds.
  std::vector<std::string> of_holder(const std::string& holder) const;
  /// Forgets the leases among `ids` (given back); other ids are no lease and are left alone.
  void forget(const std::vector<std::string>& ids);

 private:
  struct Lease {
    std::string holder;
    std::string queue;
    bool revoked = false;
  };

  std::map<std::string, Lease> leases_;                                   // by lease id
  std::map<std::pair<std::string, std::string>, std::string> by_holder_;  // (holder, queue) -> id
  uint64_t issued_ = 0;
};

}  // namespace unisched::actors
