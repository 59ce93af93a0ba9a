#include "runtime/log_format.hpp"

#include <spdlog/details/log_msg.h>
#include <spdlog/pattern_formatter.h>

#include <algorithm>
#include <string>

#include "model/printable.hpp"

namespace unisched::runtime {
namespace {

bool has_control_character(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f || byte == 0xc2;  // 0xc2: maybe a C1 control
  });
}

class EscapingFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string_view text(msg.payload.data(), msg.payload.size());
    if (!has_control_character(text)) {
      pattern_.format(msg, dest);
      return;
    }
    const std::string escaped = model::printable(text);
    spdlog::details::log_msg copy = msg;
    copy.payload = spdlog::string_view_t(escaped.data(), escaped.size());
    pattern_.format(copy, dest);
    // Colour sinks read the level's colour range from the message they passed in.
    msg.color_range_start = copy.color_range_start;
    msg.color_range_end = copy.color_range_end;
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<EscapingFormatter>();
  }

 private:
  spdlog::pattern_formatter pattern_;
};

}  // namespace

std::unique_ptr<spdlog::formatter> make_escaping_formatter() {
  return std::make_unique<EscapingFormatter>();
}

}  // namespace unisched::runtime
