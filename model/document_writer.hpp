// Where encoders write a document: one interface, a YAML and a JSON implementation, so each
// kind's encoder is written once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace unisched::model {

class DocumentWriter {
 public:
  virtual ~DocumentWriter() = default;
  virtual void begin_object() = 0;
  virtual void end_object() = 0;
  virtual void begin_list() = 0;
  virtual void end_list() = 0;
  /// The next value belongs to this key of the enclosing object.
  virtual void key(std::string_view name) = 0;
  virtual void string(std::string_view value) = 0;
  virtual void integer(int64_t value) = 0;
  virtual void boolean(bool value) = 0;
  /// Starts the next top-level document (YAML "---"; nothing in JSON, which holds one value).
  virtual void next_document() = 0;
  /// Everything written so far, closed off as a complete text.
  virtual std::string finish() = 0;

  void field(std::string_view name, std::string_view value) {
    key(name);
    string(value);
  }
  void field(std::string_view name, int64_t value) {
    key(name);
    integer(value);
  }
};

/// Block-style YAML; strings that would read back as another type are quoted.
std::unique_ptr<DocumentWriter> make_yaml_writer();

/// JSON indented by four spaces like kubectl's; it holds a single top-level value.
std::unique_ptr<DocumentWriter> make_json_writer();

}  // namespace unisched::model
