#include "model/printable.hpp"

#include <cstdio>

namespace unisched::model {
namespace {

/// Appends `text` to `out`, escaping control characters and, when `quoting`, '"' and '\'.
void append_escaped(std::string& out, std::string_view text, bool quoting) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    char escape[8];
    if (c == '\n' || c == '\r' || c == '\t') {
      out.push_back('\\');
      out.push_back(c == '\n' ? 'n' : (c == '\r' ? 'r' : 't'));
    } else if (c < 0x20 || c == 0x7f) {
      std::snprintf(escape, sizeof(escape), "\\x%02x", c);
      out += escape;
    } else if (c == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      // A C1 control in UTF-8 (U+0080..U+009F): some terminals act on U+009B as on ESC [.
      std::snprintf(escape, sizeof(escape), "\\u%04x", static_cast<unsigned char>(text[++i]));
      out += escape;
    } else {
      if (quoting && (c == '"' || c == '\\')) {
        out.push_back('\\');
      }
      out.push_back(static_cast<char>(c));
    }
  }
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text, false);
  return out;
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  append_escaped(out, text, true);
  return out + "\"";
}

std::string quoted_brief(std::string_view text) {
  constexpr size_t kShown = 64;
  return text.size() <= kShown ? quoted(text) : quoted(text.substr(0, kShown)) + "...";
}

}  // namespace unisched::model
