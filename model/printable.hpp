// Text from outside (names, ids, file names, reasons) made safe to print: control characters
// become escapes, so one value cannot forge a line of a log or a row of a table, cut a message
// short with a NUL, or drive a terminal with escape sequences.
#pragma once

#include <string>
#include <string_view>

namespace unisched::model {

/// `text` with every control character (C0, DEL, and C1 as UTF-8) written as an escape: \n, \r,
/// \t, or \xNN (C1: \u0080..\u009f). Everything else, backslashes included, is kept.
std::string printable(std::string_view text);

/// `text` in double quotes, with quotes and backslashes escaped and control characters as
/// printable() writes them.
std::string quoted(std::string_view text);

/// quoted() of at most the first 64 bytes of `text`, with "..." after the quotes when it was
/// longer: for echoing a value that may be huge (a 1 MB id) in an error.
std::string quoted_brief(std::string_view text);

}  // namespace unisched::model
