#include <vector>

#include "model/document_writer.hpp"

namespace unisched::model {
namespace {

class JsonWriter final : public DocumentWriter {
 public:
  void begin_object() override { open('{'); }
  void end_object() override { close('}'); }
  void begin_list() override { open('['); }
  void end_list() override { close(']'); }
  void key(std::string_view name) override {
    separate();
    append_string(name);
    text_ += ": ";
    after_key_ = true;
  }
  void string(std::string_view value) override {
    separate();
    append_string(value);
  }
  void integer(int64_t value) override {
    separate();
    text_ += std::to_string(value);
  }
  void boolean(bool value) override {
    separate();
    text_ += value ? "true" : "false";
  }
  void next_document() override {}  // JSON holds one value; callers wrap several in a List
  std::string finish() override { return text_ + "\n"; }

 private:
  void open(char bracket) {
    separate();
    text_ += bracket;
    empty_.push_back(true);
  }
  void close(char bracket) {
    const bool empty = empty_.back();
    empty_.pop_back();
    if (!empty) {
      newline();
    }
    text_ += bracket;
  }
  /// Comma and indentation before a value, unless it follows its key.
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (empty_.empty()) {
      return;
    }
    if (!empty_.back()) {
      text_ += ',';
    }
    empty_.back() = false;
    newline();
  }
  void newline() {
    text_ += '\n';
    text_.append(empty_.size() * 4, ' ');
  }
  void append_string(std::string_view value) {
    static constexpr char kHex[] = "0123456789abcdef";
    text_ += '"';
    for (unsigned char c : value) {
      switch (c) {
        case '"':
          text_ += "\\\"";
          break;
        case '\\':
          text_ += "\\\\";
          break;
        case '\n':
          text_ += "\\n";
          break;
        case '\t':
          text_ += "\\t";
          break;
        case '\r':
          text_ += "\\r";
          break;
        default:
          if (c < 0x20) {
            text_ += "\\u00";
            text_ += kHex[c >> 4];
            text_ += kHex[c & 0xf];
          } else {
            text_ += static_cast<char>(c);
          }
      }
    }
    text_ += '"';
  }

  std::string text_;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace

std::unique_ptr<DocumentWriter> make_json_writer() {
  return std::make_unique<JsonWriter>();
}

}  // namespace unisched::model
