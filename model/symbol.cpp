#include "model/symbol.hpp"

#include <absl/container/flat_hash_map.h>

#include <mutex>
#include <ostream>
#include <unordered_set>

namespace unisched::model {
namespace {

/// Every symbol's text. Elements of an unordered_set keep their address for its lifetime,
/// which is the process's (never destroyed, so symbols stay valid during static destruction).
const std::string* intern(std::string_view text) {
  // The last two found are compared first: a node's devices repeat the same model and
  // resource name, and comparing a few bytes is cheaper than hashing them.
  thread_local const std::string* recent[2] = {nullptr, nullptr};
  thread_local unsigned next_recent = 0;
  for (const std::string* held : recent) {
    if (held != nullptr && *held == text) {
      return held;
    }
  }
  // Each thread keeps the symbols it has seen by their text: a decoder reads two or three of
  // them (a device's resource name and model) for every device of every node, and this answers
  // those without the lock and without a copy of the text.
  thread_local absl::flat_hash_map<std::string_view, const std::string*> seen;
  if (const auto found = seen.find(text); found != seen.end()) {
    recent[next_recent++ % 2] = found->second;
    return found->second;
  }
  static std::mutex& guard = *new std::mutex;
  static auto& texts = *new std::unordered_set<std::string>;
  const std::string* held = nullptr;
  {
    std::lock_guard<std::mutex> lock(guard);
    held = &*texts.emplace(text).first;
  }
  seen.emplace(*held, held);
  recent[next_recent++ % 2] = held;
  return held;
}

}  // namespace

Symbol::Symbol() {
  static const std::string* const empty = intern(std::string());
  text_ = empty;
}
Symbol::Symbol(const std::string& text) : text_(intern(text)) {}
Symbol::Symbol(const char* text) : text_(intern(text)) {}
Symbol::Symbol(std::string_view text) : text_(intern(text)) {}

std::ostream& operator<<(std::ostream& out, const Symbol& symbol) {
  return out << symbol.str();
}

}  // namespace unisched::model
