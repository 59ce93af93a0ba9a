// Escaping text from outside before it is printed: values in errors, table cells, log lines.
#include "model/printable.hpp"

#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <boost/test/unit_test.hpp>
#include <sstream>

#include "runtime/log_format.hpp"

using unisched::model::printable;
using unisched::model::quoted;
using unisched::model::quoted_brief;

BOOST_AUTO_TEST_SUITE(printable_text)

BOOST_AUTO_TEST_CASE(control_characters_become_escapes) {
  BOOST_TEST(printable("plain name-1.yaml") == "plain name-1.yaml");
  BOOST_TEST(printable("a\nb\r\tc") == "a\\nb\\r\\tc");
  BOOST_TEST(printable(std::string("nul\0cut", 7)) == "nul\\x00cut");
  BOOST_TEST(printable("\x1b[31mred") == "\\x1b[31mred");
  BOOST_TEST(printable("del\x7f") == "del\\x7f");
  BOOST_TEST(printable("csi\xc2\x9b"
                       "2J") == "csi\\u009b2J");                            // C1 control in UTF-8
  BOOST_TEST(printable("caf\xc3\xa9 \xc2\xa0") == "caf\xc3\xa9 \xc2\xa0");  // other UTF-8 kept
  BOOST_TEST(printable("back\\slash") == "back\\slash");
}

BOOST_AUTO_TEST_CASE(quoted_values_escape_quotes_too) {
  BOOST_TEST(quoted("say \"hi\"\n") == "\"say \\\"hi\\\"\\n\"");
  BOOST_TEST(quoted(std::string("a\0b", 3)) == "\"a\\x00b\"");
  BOOST_TEST(quoted_brief("short") == "\"short\"");
  BOOST_TEST(quoted_brief(std::string(1 << 20, 'x')) == "\"" + std::string(64, 'x') + "\"...");
}

BOOST_AUTO_TEST_CASE(a_log_message_cannot_forge_a_line) {
  std::ostringstream out;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
  spdlog::logger logger("test", sink);
  logger.set_formatter(unisched::runtime::make_escaping_formatter());
  logger.warn("cluster {} joined", "evil\n[2026-11-30 00:00:00.000] [unisched] [error] forged");
  logger.info("clean line");
  const std::string text = out.str();
  BOOST_TEST(std::count(text.begin(), text.end(), '\n') == 2);
  BOOST_TEST(text.find("evil\\n[2026-11-30") != std::string::npos, text);
  BOOST_TEST(text.find("[warning] cluster evil") != std::string::npos, text);
  BOOST_TEST(text.find("clean line\n") != std::string::npos, text);
}

BOOST_AUTO_TEST_SUITE_END()
