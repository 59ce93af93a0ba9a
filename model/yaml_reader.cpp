#include "model/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace unisched::model {
namespace {

bool is_match(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return text == w; });
}

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_integer_text(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    text.remove_prefix(1);
  }
  return all_digits(text);
}

bool is_number_text(std::string_view text) {
  if (is_match(std::string(text), {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
                                   "-.Inf", "-.INF", ".nan", ".NaN", ".NAN"})) {
    return true;
  }
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    text.remove_prefix(1);
  }
  const size_t exponent = text.find_first_of("eE");
  std::string_view mantissa = text.substr(0, exponent);
  if (exponent != std::string_view::npos) {
    std::string_view power = text.substr(exponent + 1);
    if (!power.empty() && (power[0] == '-' || power[0] == '+')) {
      power.remove_prefix(1);
    }
    if (!all_digits(power)) {
      return false;
    }
  }
  const size_t dot = mantissa.find('.');
  if (dot == std::string_view::npos) {
    return all_digits(mantissa);
  }
  const std::string_view whole = mantissa.substr(0, dot);
  const std::string_view fraction = mantissa.substr(dot + 1);
  return (whole.empty() || all_digits(whole)) && (fraction.empty() || all_digits(fraction)) &&
         !(whole.empty() && fraction.empty());
}

YamlType resolve_plain(const std::string& text) {
  if (is_match(text, {"", "~", "null", "Null", "NULL"})) {
    return YamlType::Null;
  }
  if (is_match(text, {"true", "True", "TRUE", "false", "False", "FALSE"})) {
    return YamlType::Bool;
  }
  if (is_integer_text(text)) {
    return YamlType::Integer;
  }
  return is_number_text(text) ? YamlType::Number : YamlType::String;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// Names other systems give a field of ours, which no edit distance would lead to: Kubernetes'
/// extended resources and Slurm's GRES word for a device request.
const std::map<std::string, std::string>& other_systems_names() {
  static const std::map<std::string, std::string> names = {{"gpu", "accelerators"},
                                                           {"gpus", "accelerators"},
                                                           {"GPU", "accelerators"},
                                                           {"gres", "accelerators"},
                                                           {"nvidia.com/gpu", "accelerators"},
                                                           {"amd.com/gpu", "accelerators"},
                                                           {"devices", "accelerators"}};
  return names;
}

/// The field a user most likely meant by an unknown `key`, among the `known` ones; null if none.
const std::string* closest_field(const std::string& key, const std::set<std::string>& known) {
  if (const auto other = other_systems_names().find(key);
      other != other_systems_names().end() && known.count(other->second) != 0) {
    return &*known.find(other->second);
  }
  const std::string* closest = nullptr;
  size_t best = 3;  // suggest only near misses: a typo or a wrong case
  for (const auto& candidate : known) {
    if (const size_t distance = edit_distance(key, candidate); distance < best) {
      best = distance;
      closest = &candidate;
    }
  }
  return closest;
}

}  // namespace

YamlType yaml_type(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return YamlType::Null;
    case YAML::NodeType::Sequence:
      return YamlType::List;
    case YAML::NodeType::Map:
      return YamlType::Object;
    case YAML::NodeType::Scalar:
      break;
  }
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") {
    return YamlType::String;  // quoted, or explicitly a string
  }
  return resolve_plain(node.Scalar());
}

const char* describe(YamlType type) {
  switch (type) {
    case YamlType::Null:
      return "null";
    case YamlType::Bool:
      return "boolean";
    case YamlType::Integer:
      return "integer";
    case YamlType::Number:
      return "number";
    case YamlType::String:
      return "string";
    case YamlType::List:
      return "list";
    case YamlType::Object:
      return "object";
  }
  return "value";
}

bool plain_scalar_is_not_string(const std::string& text) {
  return resolve_plain(text) != YamlType::String;
}

void DecodeContext::error(FieldErrorType type, const FieldPath& path, std::string value,
                          std::string detail, const YAML::Node& at) {
  errors_.push_back(FieldError{type, path.str(), std::move(value), std::move(detail), line_of(at)});
}

void DecodeContext::remember(const FieldPath& path, const YAML::Node& at) {
  if (const int line = line_of(at); line > 0) {
    lines_.emplace(path.str(), line);
  }
}

int DecodeContext::line_of(const YAML::Node& node) const {
  const int line = node.Mark().line;
  return line >= 0 ? first_line_ + line : 0;
}

int DecodeContext::line_of(const std::string& path) const {
  for (std::string prefix = path; !prefix.empty();) {
    if (const auto found = lines_.find(prefix); found != lines_.end()) {
      return found->second;
    }
    const size_t cut = prefix.find_last_of(".[");
    prefix.resize(cut == std::string::npos ? 0 : cut);
  }
  return first_line_;
}

YamlObject::YamlObject(const YAML::Node& node, FieldPath path, DecodeContext& context)
    : node_(node), path_(std::move(path)), context_(context) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) {
      context_.error(FieldErrorType::TypeInvalid, path_, {}, "field names must be strings",
                     it->first);
      continue;
    }
    const std::string key = it->first.Scalar();
    if (!index_.try_emplace(key, entries_.size()).second) {
      context_.error(FieldErrorType::Duplicate, path_.child(key), {},
                     "the field is given more than once", it->first);
      continue;
    }
    context_.remember(path_.child(key), it->first);
    entries_.emplace_back(key, it->second);
  }
}

const YAML::Node* YamlObject::find(const std::string& key) {
  asked_.insert(key);
  const auto found = index_.find(key);
  return found == index_.end() ? nullptr : &entries_[found->second].second;
}

const YAML::Node* YamlObject::find_present(const std::string& key, bool required) {
  const YAML::Node* node = find(key);
  if (node != nullptr && yaml_type(*node) != YamlType::Null) {
    return node;
  }
  if (required) {
    context_.error(FieldErrorType::Required, path_.child(key), {}, {}, node ? *node : node_);
    if (node == nullptr) {
      context_.errors().back().line = context_.line_of(node_);
    }
  }
  return nullptr;
}

bool YamlObject::expect(const YAML::Node& node, const FieldPath& path, YamlType wanted) {
  const YamlType actual = yaml_type(node);
  if (actual == wanted) {
    return true;
  }
  std::string detail = std::string("expected ") + describe(wanted) + ", got " + describe(actual);
  std::string value;
  if (node.IsScalar()) {
    value = quoted(node.Scalar());
    if (wanted == YamlType::String) {
      detail += " (quote it to make it a string)";
    } else if (actual == YamlType::String && resolve_plain(node.Scalar()) == wanted) {
      detail += " (remove the quotes)";
    }
  }
  context_.error(FieldErrorType::TypeInvalid, path, std::move(value), std::move(detail), node);
  return false;
}

std::optional<std::string> YamlObject::scalar_text(const YAML::Node& node, const FieldPath& path,
                                                   YamlType wanted) {
  if (!expect(node, path, wanted)) {
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<std::string> YamlObject::string(const std::string& key, bool required) {
  const YAML::Node* node = find_present(key, required);
  return node ? scalar_text(*node, path_.child(key), YamlType::String) : std::nullopt;
}

std::optional<int64_t> YamlObject::integer(const std::string& key, bool required) {
  const YAML::Node* node = find_present(key, required);
  return node ? integer_value(*node, path_.child(key)) : std::nullopt;
}

std::optional<int64_t> int64_of(std::string_view digits) {
  if (!digits.empty() && digits[0] == '+') {
    digits.remove_prefix(1);  // from_chars takes '-' but not '+'
  }
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> YamlObject::integer_value(const YAML::Node& node, const FieldPath& path) {
  const auto text = scalar_text(node, path, YamlType::Integer);
  if (!text) {
    return std::nullopt;
  }
  const auto value = int64_of(*text);
  if (!value) {
    context_.error(FieldErrorType::Invalid, path, *text, "out of range for a 64-bit integer", node);
  }
  return value;
}

std::optional<bool> YamlObject::boolean(const std::string& key) {
  const YAML::Node* node = find_present(key, false);
  if (node == nullptr || !expect(*node, path_.child(key), YamlType::Bool)) {
    return std::nullopt;
  }
  return node->Scalar()[0] == 't' || node->Scalar()[0] == 'T';
}

std::optional<Quantity> YamlObject::quantity(const std::string& key, bool required) {
  const YAML::Node* node = find_present(key, required);
  if (node == nullptr) {
    return std::nullopt;
  }
  const YamlType type = yaml_type(*node);
  // Kubernetes accepts quantities as strings or as JSON numbers.
  if (type != YamlType::Integer && type != YamlType::Number) {
    if (!expect(*node, path_.child(key), YamlType::String)) {
      return std::nullopt;
    }
  }
  auto parsed = Quantity::parse(node->Scalar());
  if (!parsed) {
    context_.error(FieldErrorType::Invalid, path_.child(key), quoted(node->Scalar()),
                   describe(parsed.error()) + quantity_suggestion(node->Scalar()), *node);
    return std::nullopt;
  }
  return *parsed;
}

template <class Type>
std::optional<Type> YamlObject::parsed_string(const std::string& key) {
  const auto text = string(key);
  if (!text) {
    return std::nullopt;
  }
  auto parsed = Type::parse(*text);
  if (!parsed) {
    context_.error(FieldErrorType::Invalid, path_.child(key), quoted(*text), parsed.error(),
                   *find(key));
    return std::nullopt;
  }
  return *parsed;
}

std::optional<Bandwidth> YamlObject::bandwidth(const std::string& key) {
  return parsed_string<Bandwidth>(key);
}

std::optional<LatencyBound> YamlObject::latency(const std::string& key) {
  return parsed_string<LatencyBound>(key);
}

std::optional<YamlObject> YamlObject::object(const std::string& key, bool required) {
  const YAML::Node* node = find_present(key, required);
  if (node == nullptr || !expect(*node, path_.child(key), YamlType::Object)) {
    return std::nullopt;
  }
  return YamlObject(*node, path_.child(key), context_);
}

std::vector<std::string> YamlObject::strings(const std::string& key) {
  std::vector<std::string> values;
  const YAML::Node* node = find_present(key, false);
  if (node == nullptr || !expect(*node, path_.child(key), YamlType::List)) {
    return values;
  }
  for (size_t i = 0; i < node->size(); ++i) {
    const FieldPath item = path_.child(key).index(i);
    context_.remember(item, (*node)[i]);
    if (auto text = scalar_text((*node)[i], item, YamlType::String)) {
      values.push_back(*text);
    }
  }
  return values;
}

std::vector<int64_t> YamlObject::integers(const std::string& key) {
  std::vector<int64_t> values;
  const YAML::Node* node = find_present(key, false);
  if (node == nullptr || !expect(*node, path_.child(key), YamlType::List)) {
    return values;
  }
  for (size_t i = 0; i < node->size(); ++i) {
    const FieldPath item = path_.child(key).index(i);
    context_.remember(item, (*node)[i]);
    if (auto value = integer_value((*node)[i], item)) {
      values.push_back(*value);
    }
  }
  return values;
}

std::map<std::string, std::string> YamlObject::string_map(const std::string& key) {
  std::map<std::string, std::string> values;
  auto map = object(key);
  if (!map) {
    return values;
  }
  for (const auto& [entry_key, entry_value] : map->entries_) {
    map->asked_.insert(entry_key);
    if (auto text = map->scalar_text(entry_value, map->path_.key(entry_key), YamlType::String)) {
      values.emplace(entry_key, *text);
    }
  }
  return values;
}

std::map<std::string, Quantity> YamlObject::quantity_map(const std::string& key, bool required) {
  std::map<std::string, Quantity> values;
  auto map = object(key, required);
  if (!map) {
    return values;
  }
  for (const auto& [entry_key, entry_value] : map->entries_) {
    if (auto quantity = map->quantity(entry_key)) {
      values.emplace(entry_key, *quantity);
    }
  }
  return values;
}

std::vector<YamlObject> YamlObject::objects(const std::string& key, bool required) {
  std::vector<YamlObject> items;
  const YAML::Node* node = find_present(key, required);
  if (node == nullptr || !expect(*node, path_.child(key), YamlType::List)) {
    return items;
  }
  for (size_t i = 0; i < node->size(); ++i) {
    const FieldPath item = path_.child(key).index(i);
    context_.remember(item, (*node)[i]);
    if (expect((*node)[i], item, YamlType::Object)) {
      items.emplace_back((*node)[i], item, context_);
    }
  }
  return items;
}

void YamlObject::reject_unknown_fields(const std::string& owner) {
  const std::string where = owner.empty() ? path_.str() : owner;
  for (const auto& [key, value] : entries_) {
    if (asked_.count(key) != 0) {
      continue;
    }
    std::string detail = "not a field of " + where;
    if (const std::string* closest = closest_field(key, asked_)) {
      context_.note_meant(path_.child(*closest));
      detail += " (did you mean \"" + *closest + "\"?)";
    }
    context_.error(FieldErrorType::UnknownField, path_.child(key), {}, detail, value);
    context_.errors().back().line = context_.line_of(path_.child(key).str());
  }
}

}  // namespace unisched::model
