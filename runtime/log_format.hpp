// How every log line is written: spdlog's default pattern, with control characters in the
// message escaped (model::printable), so a name or id that carries a newline cannot forge a
// line of the log, and one with terminal escapes cannot drive the reader's terminal.
#pragma once

#include <spdlog/formatter.h>

#include <memory>

namespace unisched::runtime {

std::unique_ptr<spdlog::formatter> make_escaping_formatter();

}  // namespace unisched::runtime
