#include "model/symbol.hpp"

#include <mutex>
#include <ostream>
#include <unordered_set>

namespace unisched::model {
namespace {

/// Every symbol's text. Elements of an unordered_set keep their address for its lifetime,
/// which is the process's (never destroyed, so symbols stay valid during static destruction).
const std::string* intern(const std::string& text) {
  // Devices of a node, and nodes of a cluster, repeat one model: the last one each thread
  // interned answers most calls without the lock.
  thread_local const std::string* last = nullptr;
  if (last != nullptr && *last == text) {
    return last;
  }
  static std::mutex& guard = *new std::mutex;
  static auto& texts = *new std::unordered_set<std::string>;
  std::lock_guard<std::mutex> lock(guard);
  last = &*texts.insert(text).first;
  return last;
}

}  // namespace

Symbol::Symbol() {
  static const std::string* const empty = intern(std::string());
  text_ = empty;
}
Symbol::Symbol(const std::string& text) : text_(intern(text)) {}
Symbol::Symbol(const char* text) : Symbol(std::string(text)) {}

std::ostream& operator<<(std::ostream& out, const Symbol& symbol) {
  return out << symbol.str();
}

}  // namespace unisched::model
