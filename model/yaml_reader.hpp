// Strict reading of KRM documents from yaml-cpp nodes: every field is type-checked, unknown and
// duplicate keys are errors, and every error carries its field path and source line.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/bandwidth.hpp"
#include "model/field_error.hpp"
#include "model/krm_common.hpp"
#include "model/latency.hpp"

namespace unisched::model {

/// The YAML 1.2 core-schema type of a node; quoted scalars are always strings.
enum class YamlType { Null, Bool, Integer, Number, String, List, Object };

YamlType yaml_type(const YAML::Node& node);
const char* describe(YamlType type);

/// The value of an integer scalar (YamlType::Integer: optional sign, decimal digits); nullopt
/// when it does not fit in 64 bits.
std::optional<int64_t> int64_of(std::string_view digits);

/// True when a plain (unquoted) scalar `text` would be read as something other than a string,
/// so writers know to quote it.
bool plain_scalar_is_not_string(const std::string& text);

/// Errors and source lines gathered while decoding one document.
class DecodeContext {
 public:
  /// `first_line`: the 1-based line in the file where this document's text starts.
  explicit DecodeContext(int first_line) : first_line_(first_line) {}

  void error(FieldErrorType type, const FieldPath& path, std::string value, std::string detail,
             const YAML::Node& at);
  void remember(const FieldPath& path, const YAML::Node& at);
  int line_of(const YAML::Node& node) const;
  /// The line of `path`, or of its nearest remembered parent; 0 when none is known.
  int line_of(const std::string& path) const;
  int first_line() const { return first_line_; }

  FieldErrors& errors() { return errors_; }
  /// Fields a suggestion named for an unknown key ("gpus" -> spec.resources.accelerators): the
  /// user likely wrote them under that key, so they are not also missing.
  void note_meant(const FieldPath& path) { meant_.push_back(path.str()); }
  const std::vector<std::string>& meant() const { return meant_; }

 private:
  int first_line_;
  FieldErrors errors_;
  std::vector<std::string> meant_;
  std::map<std::string, int> lines_;
};

/// One YAML mapping, read field by field. Each accessor returns nullopt when the field is absent,
/// null, or wrong (the error is recorded); `required` adds a Required error when absent.
class YamlObject {
 public:
  YamlObject(const YAML::Node& node, FieldPath path, DecodeContext& context);

  std::optional<std::string> string(const std::string& key, bool required = false);
  std::optional<int64_t> integer(const std::string& key, bool required = false);
  std::optional<bool> boolean(const std::string& key);
  std::optional<Quantity> quantity(const std::string& key, bool required = false);
  std::optional<Bandwidth> bandwidth(const std::string& key);
  std::optional<LatencyBound> latency(const std::string& key);
  std::optional<YamlObject> object(const std::string& key, bool required = false);
  std::vector<std::string> strings(const std::string& key);
  std::vector<int64_t> integers(const std::string& key);
  std::map<std::string, std::string> string_map(const std::string& key);
  /// A mapping of names to quantities ("nvidia.com/gpu": "64"), each value checked as a
  /// quantity at its own path; the names are the caller's to check.
  std::map<std::string, Quantity> quantity_map(const std::string& key, bool required = false);
  /// Each entry of a list of objects.
  std::vector<YamlObject> objects(const std::string& key, bool required = false);

  template <class Enum, size_t N>
  std::optional<Enum> enumeration(const std::string& key, const EnumSpellings<Enum, N>& spellings,
                                  bool required = false) {
    const auto text = string(key, required);
    if (!text) {
      return std::nullopt;
    }
    std::string supported;
    for (const auto& [value, name] : spellings) {
      if (name == *text) {
        return value;
      }
      supported += (supported.empty() ? "" : ", ") + quoted(name);
    }
    context_.error(FieldErrorType::NotSupported, path_.child(key), quoted(*text),
                   "supported values: " + supported, *find(key));
    return std::nullopt;
  }

  /// A string field read by `parse` (returning Expected<T, std::string>), whose refusal becomes an
  /// error of `type` with its reason.
  template <class T, class Parse>
  std::optional<T> parsed(const std::string& key, FieldErrorType type, Parse parse) {
    const auto text = string(key);
    if (!text) {
      return std::nullopt;
    }
    auto value = parse(*text);
    if (!value) {
      context_.error(type, path_.child(key), quoted(*text), value.error(), *find(key));
      return std::nullopt;
    }
    return std::move(value.value());
  }

  /// The field's YAML as written, for a subtree read as a whole (a PodTemplateSpec); null when
  /// absent or null.
  const YAML::Node* raw(const std::string& key) { return find_present(key, false); }

  /// Reports every key that no accessor asked for; call after reading all known fields.
  /// `owner` names the object in the message (default: its field path).
  void reject_unknown_fields(const std::string& owner = {});

  const FieldPath& path() const { return path_; }
  DecodeContext& context() { return context_; }

 private:
  const YAML::Node* find(const std::string& key);
  const YAML::Node* find_present(const std::string& key, bool required);
  bool expect(const YAML::Node& node, const FieldPath& path, YamlType wanted);
  std::optional<int64_t> integer_value(const YAML::Node& node, const FieldPath& path);
  /// A string field read by `Type::parse`, whose refusal becomes an Invalid error.
  template <class Type>
  std::optional<Type> parsed_string(const std::string& key);
  std::optional<std::string> scalar_text(const YAML::Node& node, const FieldPath& path,
                                         YamlType wanted);

  YAML::Node node_;
  FieldPath path_;
  DecodeContext& context_;
  std::vector<std::pair<std::string, YAML::Node>> entries_;  // in document order
  absl::flat_hash_map<std::string, size_t> index_;           // key -> its entry
  std::set<std::string> asked_;
};

}  // namespace unisched::model
