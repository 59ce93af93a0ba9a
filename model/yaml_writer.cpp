#include <yaml-cpp/yaml.h>

#include "model/document_writer.hpp"
#include "model/yaml_reader.hpp"

namespace unisched::model {
namespace {

class YamlWriter final : public DocumentWriter {
 public:
  void begin_object() override { out_ << YAML::BeginMap; }
  void end_object() override { out_ << YAML::EndMap; }
  void begin_list() override { out_ << YAML::BeginSeq; }
  void end_list() override { out_ << YAML::EndSeq; }
  void key(std::string_view name) override {
    out_ << YAML::Key << std::string(name) << YAML::Value;
  }
  void string(std::string_view value) override {
    const std::string text(value);
    if (plain_scalar_is_not_string(text)) {
      out_ << YAML::DoubleQuoted << text;
    } else {
      out_ << text;
    }
  }
  void integer(int64_t value) override { out_ << value; }
  void boolean(bool value) override { out_ << YAML::TrueFalseBool << value; }
  void next_document() override { out_ << YAML::BeginDoc; }
  std::string finish() override { return std::string(out_.c_str()) + "\n"; }

 private:
  YAML::Emitter out_;
};

}  // namespace

std::unique_ptr<DocumentWriter> make_yaml_writer() {
  return std::make_unique<YamlWriter>();
}

}  // namespace unisched::model
