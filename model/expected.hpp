// A value or an error, for parsers that must say why they refused (C++17 has no std::expected).
#pragma once

#include <utility>
#include <variant>

namespace unisched::model {

template <class T, class E>
class Expected {
 public:
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Expected(E error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  const T& value() const { return std::get<0>(state_); }
  T& value() { return std::get<0>(state_); }
  const T& operator*() const { return value(); }
  T& operator*() { return value(); }  // so that std::move(*expected) moves, not copies
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const E& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, E> state_;
};

}  // namespace unisched::model
