// The JSON form of a document, printed as it is written (fields keep their order) with
// four-space indentation like kubectl's. Written straight to text rather than built as an
// nlohmann::ordered_json tree: that tree finds each key by a linear search, so an object of n
// keys (a manifest's 100,000 labels) cost n^2 comparisons.
#include <nlohmann/json.hpp>

#include <vector>

#include "model/document_writer.hpp"

namespace unisched::model {
namespace {

/// `value` as a JSON string literal: nlohmann's own escaping, invalid UTF-8 as U+FFFD.
std::string quoted_json(std::string_view value) {
  return nlohmann::json(std::string(value))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class JsonWriter final : public DocumentWriter {
 public:
  void begin_object() override { open('{'); }
  void end_object() override { close('}'); }
  void begin_list() override { open('['); }
  void end_list() override { close(']'); }
  void key(std::string_view name) override { key_ = std::string(name); }
  void string(std::string_view value) override { place() += quoted_json(value); }
  void integer(int64_t value) override { place() += std::to_string(value); }
  void boolean(bool value) override { place() += value ? "true" : "false"; }
  void next_document() override {}  // JSON holds one value; callers wrap several in a List
  std::string finish() override { return (text_.empty() ? "null" : text_) + "\n"; }

 private:
  struct Open {
    bool list;
    bool has_items;
  };

  /// Writes what comes before the next value (a separator, indentation and its key inside an
  /// object) and returns the text to append the value to.
  std::string& place() {
    if (open_.empty()) {
      text_.clear();  // a second top-level value replaces the first, as it did in the tree
      return text_;
    }
    Open& container = open_.back();
    text_ += container.has_items ? ",\n" : "\n";
    container.has_items = true;
    text_.append(4 * open_.size(), ' ');
    if (!container.list) {
      text_ += quoted_json(key_);
      text_ += ": ";
    }
    return text_;
  }
  void open(char bracket) {
    place() += bracket;
    open_.push_back(Open{bracket == '[', false});
  }
  void close(char bracket) {
    const bool had_items = open_.back().has_items;
    open_.pop_back();
    if (had_items) {
      text_ += '\n';
      text_.append(4 * open_.size(), ' ');
    }
    text_ += bracket;
  }

  std::string text_;
  std::vector<Open> open_;  // the containers not yet ended, innermost last
  std::string key_;
};

}  // namespace

std::unique_ptr<DocumentWriter> make_json_writer() {
  return std::make_unique<JsonWriter>();
}

}  // namespace unisched::model
