#include "model/symbol.hpp"

#include <mutex>
#include <ostream>
#include <unordered_set>

namespace unisched::model {
namespace {

/// Every symbol's text. Elements of an unordered_set keep their address for its lifetime,
/// which is the process's (never destroyed, so symbols stay valid during static destruction).
const std::string* intern(const std::string& text) {
  static std::mutex& guard = *new std::mutex;
  static auto& texts = *new std::unordered_set<std::string>;
  std::lock_guard<std::mutex> lock(guard);
  return &*texts.insert(text).first;
}

}  // namespace

Symbol::Symbol() : Symbol(std::string()) {}
Symbol::Symbol(const std::string& text) : text_(intern(text)) {}
Symbol::Symbol(const char* text) : Symbol(std::string(text)) {}

std::ostream& operator<<(std::ostream& out, const Symbol& symbol) {
  return out << symbol.str();
}

}  // namespace unisched::model
