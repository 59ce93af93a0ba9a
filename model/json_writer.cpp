// The JSON form of a document, built as an nlohmann::ordered_json tree (fields keep their order)
// and printed with four-space indentation like kubectl's.
#include <nlohmann/json.hpp>

#include <vector>

#include "model/document_writer.hpp"

namespace unisched::model {
namespace {

class JsonWriter final : public DocumentWriter {
 public:
  void begin_object() override { open(nlohmann::ordered_json::object()); }
  void end_object() override { open_.pop_back(); }
  void begin_list() override { open(nlohmann::ordered_json::array()); }
  void end_list() override { open_.pop_back(); }
  void key(std::string_view name) override { key_ = std::string(name); }
  void string(std::string_view value) override { put(std::string(value)); }
  void integer(int64_t value) override { put(value); }
  void boolean(bool value) override { put(value); }
  void next_document() override {}  // JSON holds one value; callers wrap several in a List
  std::string finish() override {
    // Invalid UTF-8 in a value becomes U+FFFD rather than an exception.
    return root_.dump(4, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  }

 private:
  /// Puts `value` where the next value goes: the root, the open list, or the key of the open
  /// object; returns where it went.
  nlohmann::ordered_json* put(nlohmann::ordered_json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    nlohmann::ordered_json& container = *open_.back();
    if (container.is_array()) {
      container.push_back(std::move(value));
      return &container.back();
    }
    return &(container[key_] = std::move(value));
  }
  void open(nlohmann::ordered_json container) { open_.push_back(put(std::move(container))); }

  nlohmann::ordered_json root_;
  std::vector<nlohmann::ordered_json*> open_;  // the containers not yet ended, innermost last
  std::string key_;
};

}  // namespace

std::unique_ptr<DocumentWriter> make_json_writer() {
  return std::make_unique<JsonWriter>();
}

}  // namespace unisched::model
