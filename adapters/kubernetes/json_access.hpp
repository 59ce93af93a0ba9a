// Reading Kubernetes objects with simdjson's DOM, tolerantly: a field that is absent, null or of
// another type reads as empty (real bookmarks carry "containers": null). Internal to the
// Kubernetes adapter's .cpp files; its public headers stay free of simdjson.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace unisched::adapters::kubernetes {

using Element = simdjson::dom::element;

/// `object[key]`, or an error result when `object` is no object or has no such key.
inline simdjson::simdjson_result<Element> field(Element object, std::string_view key) {
  return object.is_object() ? object.get_object().at_key(key)
                            : simdjson::simdjson_result<Element>(simdjson::INCORRECT_TYPE);
}

/// The string at `object[key]`; empty when it is not a string.
inline std::string_view text(Element object, std::string_view key) {
  std::string_view value;
  return field(object, key).get(value) == simdjson::SUCCESS ? value : std::string_view();
}

/// The object at `object[key]`; an empty object's iteration when it is not one.
inline bool child(Element object, std::string_view key, Element& out) {
  return field(object, key).get(out) == simdjson::SUCCESS && (out.is_object() || out.is_array());
}

/// The members of the object at `object[key]`, calling `visit(key, element)`.
template <class Visit>
void each_member(Element object, std::string_view key, Visit visit) {
  Element inner;
  if (!child(object, key, inner) || !inner.is_object()) {
    return;
  }
  for (const auto member : inner.get_object()) {
    visit(member.key, member.value);
  }
}

/// The elements of the array at `object[key]`, calling `visit(element)`; none when null.
template <class Visit>
void each_item(Element object, std::string_view key, Visit visit) {
  Element inner;
  if (!child(object, key, inner) || !inner.is_array()) {
    return;
  }
  for (const Element item : inner.get_array()) {
    visit(item);
  }
}

/// A quantity as Kubernetes writes it: a string ("500m", "16367668Ki"), or a bare number.
inline std::string quantity_text(Element value) {
  std::string_view text_value;
  if (value.get(text_value) == simdjson::SUCCESS) {
    return std::string(text_value);
  }
  int64_t integer = 0;
  if (value.get(integer) == simdjson::SUCCESS) {
    return std::to_string(integer);
  }
  return {};
}

}  // namespace unisched::adapters::kubernetes
