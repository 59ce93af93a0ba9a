// Declarations that must survive a restart, one protobuf message per record of a RecordStore
// (runtime/record_store.hpp), the last record per key winning: the hub's quota definitions (by
// queue) and applied cluster profiles (by cluster id). Recovery rewrites the store compactly, and
// a record is durable before it is reported recorded. Plain C++; the hub actor owns them.
#pragma once

#include <absl/status/status.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/record_store.hpp"

namespace unisched::runtime {

template <class Message>
class KeyedBook {
 public:
  using KeyOf = std::string (*)(const Message&);

  /// `store` null: nothing survives a restart. `what` names a record in messages
  /// ("quota definition").
  KeyedBook(std::shared_ptr<RecordStore> store, KeyOf key_of, std::string what)
      : store_(std::move(store)), key_of_(key_of), what_(std::move(what)) {}

  /// Reads the store back and rewrites it compactly; an error when it is damaged or cannot be
  /// read or written (the caller must not start then).
  absl::Status recover(std::vector<std::string>& warnings) {
    if (!store_) {
      return absl::OkStatus();
    }
    auto records = store_->open(false, warnings);
    if (!records.ok()) {
      return records.status();
    }
    for (const std::string& bytes : *records) {
      Message message;
      if (!message.ParseFromString(bytes) || key_of_(message).empty()) {
        return absl::DataLossError(store_->where() + ": an intact record is not a " + what_ +
                                   "; refusing to start");
      }
      by_key_[key_of_(message)] = std::move(message);
    }
    RecordStore::Keyed compact;
    for (const auto& [key, message] : by_key_) {
      compact.emplace_back(key, message.SerializeAsString());
    }
    return store_->rewrite(compact);
  }

  /// Records `message`, durable before this returns; false when the store cannot be written
  /// or synced (it is then not recorded).
  bool record(const Message& message) {
    const std::string key = key_of_(message);
    if (store_ && (!store_->put(key, message.SerializeAsString()) || !store_->sync())) {
      return false;
    }
    by_key_[key] = message;
    return true;
  }

  std::vector<Message> values() const {
    std::vector<Message> out;
    for (const auto& [key, message] : by_key_) {
      out.push_back(message);
    }
    return out;
  }

 private:
  std::shared_ptr<RecordStore> store_;
  KeyOf key_of_;
  std::string what_;
  std::map<std::string, Message> by_key_;
};

}  // namespace unisched::runtime
