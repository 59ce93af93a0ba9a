#include "model/names.hpp"

#include <algorithm>

namespace unisched::model {
namespace {

bool is_lower_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool is_alnum(char c) {
  return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

bool is_dns1123_label(std::string_view v) {
  if (v.empty() || v.size() > 63 || !is_lower_alnum(v.front()) || !is_lower_alnum(v.back())) {
    return false;
  }
  for (char c : v) {
    if (!is_lower_alnum(c) && c != '-') {
      return false;
    }
  }
  return true;
}

bool is_qualified_name_part(std::string_view v) {
  if (v.empty() || v.size() > 63 || !is_alnum(v.front()) || !is_alnum(v.back())) {
    return false;
  }
  for (char c : v) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

bool is_node_name_part(std::string_view v) {
  if (v.empty() || v.size() > 63 || !is_alnum(v.front()) || !is_alnum(v.back())) {
    return false;
  }
  return std::all_of(v.begin(), v.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_'; });
}

/// At most 253 characters of dot-separated parts, each one `part` accepts; else `why`.
std::string check_dotted(std::string_view value, bool (*part)(std::string_view), const char* why) {
  if (value.size() > 253) {
    return "must be no more than 253 characters";
  }
  size_t start = 0;
  while (true) {
    const size_t dot = value.find('.', start);
    if (!part(value.substr(start, dot - start))) {
      return why;
    }
    if (dot == std::string_view::npos) {
      return {};
    }
    start = dot + 1;
  }
}

}  // namespace

std::string check_node_name(std::string_view value) {
  return check_dotted(value, is_node_name_part,
                      "a node name must consist of dot-separated parts of at most 63 letters, "
                      "digits, '-' or '_', each starting and ending with a letter or digit (e.g. "
                      "'gpu-01.rack-3')");
}

std::string check_dns1123_label(std::string_view value) {
  if (value.size() > 63) {
    return "must be no more than 63 characters";
  }
  if (!is_dns1123_label(value)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
           "and must start and end with an alphanumeric character (e.g. 'my-name')";
  }
  return {};
}

std::string check_dns1123_subdomain(std::string_view value) {
  return check_dotted(value, is_dns1123_label,
                      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                      "characters, '-' or '.', and must start and end with an alphanumeric "
                      "character (e.g. 'example.com')");
}

std::string check_label_key(std::string_view value) {
  std::string_view name = value;
  const size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty() || !check_dns1123_subdomain(prefix).empty()) {
      return "prefix part must be a lowercase RFC 1123 subdomain (e.g. 'example.com')";
    }
  }
  if (name.empty()) {
    return "name part must be non-empty";
  }
  if (name.size() > 63) {
    return "name part must be no more than 63 characters";
  }
  if (!is_qualified_name_part(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
           "and end with an alphanumeric character (e.g. 'MyName', 'my.name', '123-abc')";
  }
  return {};
}

std::string check_label_value(std::string_view value) {
  if (value.empty()) {
    return {};
  }
  if (value.size() > 63) {
    return "must be no more than 63 characters";
  }
  if (!is_qualified_name_part(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
           "or '.', and must start and end with an alphanumeric character";
  }
  return {};
}

std::string dns1123_label_from(std::string_view text, size_t max_length) {
  std::string label;
  for (const char c : text) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if ((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9')) {
      label.push_back(lower);
    } else if (!label.empty() && label.back() != '-') {
      label.push_back('-');
    }
  }
  label.resize(std::min(label.size(), max_length));
  while (!label.empty() && label.back() == '-') {
    label.pop_back();
  }
  return label;
}

}  // namespace unisched::model
