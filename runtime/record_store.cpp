#include "runtime/record_store.hpp"

namespace unisched::runtime {

absl::StatusOr<std::vector<std::string>> MemoryStore::open(bool /*skip_damaged*/,
                                                           std::vector<std::string>& /*warnings*/) {
  std::vector<std::string> out;
  out.reserve(order_.size());
  for (const std::string& key : order_) {
    out.push_back(records_.at(key));
  }
  return out;
}

absl::Status MemoryStore::rewrite(const Keyed& records) {
  records_.clear();
  order_.clear();
  for (const auto& [key, record] : records) {
    put(key, record);
  }
  return absl::OkStatus();
}

bool MemoryStore::put(const std::string& key, const std::string& record) {
  if (records_.insert_or_assign(key, record).second) {
    order_.push_back(key);
  }
  return true;
}

}  // namespace unisched::runtime
