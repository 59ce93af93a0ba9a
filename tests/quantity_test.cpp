#include "model/quantity.hpp"

#include <boost/test/unit_test.hpp>
#include <fstream>

#include "tests/shared_data.hpp"

using unisched::model::Quantity;
using unisched::model::QuantityError;
using unisched::model::QuantityFormat;

namespace {

std::string canonical(const std::string& text) {
  const auto parsed = Quantity::parse(text);
  BOOST_TEST_REQUIRE(parsed.has_value(), "'" << text << "' should parse");
  return parsed->to_string();
}

QuantityError error_of(const std::string& text) {
  const auto parsed = Quantity::parse(text);
  BOOST_TEST_REQUIRE(!parsed.has_value(), "'" << text << "' should be rejected");
  return parsed.error();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quantity)

BOOST_AUTO_TEST_CASE(canonical_forms_from_the_issue) {
  BOOST_TEST(canonical("1000m") == "1");
  BOOST_TEST(canonical("1536Mi") == "1536Mi");
  BOOST_TEST(canonical("0.5") == "500m");
}

BOOST_AUTO_TEST_CASE(every_suffix_scales_exactly) {
  const std::pair<const char*, int64_t> milli_cases[] = {
      {"1n", 1},
      {"999999n", 1},
      {"1u", 1},
      {"1m", 1},
      {"1", 1000},
      {"1k", 1'000'000},
      {"1M", 1'000'000'000},
      {"1G", 1'000'000'000'000},
      {"1T", 1'000'000'000'000'000},
      {"1P", 1'000'000'000'000'000'000},
  };
  for (const auto& [text, milli] : milli_cases) {
    BOOST_TEST(*Quantity::parse(text)->milli_value() == milli, text);
  }
  const std::pair<const char*, int64_t> unit_cases[] = {
      {"1Ki", 1024},
      {"1Mi", 1 << 20},
      {"1Gi", int64_t{1} << 30},
      {"1Ti", int64_t{1} << 40},
      {"1Pi", int64_t{1} << 50},
      {"1Ei", int64_t{1} << 60},
      {"1E", 1'000'000'000'000'000'000},
  };
  for (const auto& [text, units] : unit_cases) {
    BOOST_TEST(*Quantity::parse(text)->value() == units, text);
  }
}

BOOST_AUTO_TEST_CASE(signs_and_exponents) {
  BOOST_TEST(canonical("-1.5") == "-1500m");
  BOOST_TEST(canonical("+1.5") == "1500m");
  BOOST_TEST(canonical("1E-3") == "1E-3");  // echoed: already canonical-looking
  BOOST_TEST(canonical("10e-4") == "1e-3");
  BOOST_TEST(canonical("1.5e3") == "1500");
  BOOST_TEST(canonical("2e+3") == "2e+3");
  BOOST_TEST(canonical("20e+2") == "2e3");
  BOOST_TEST((Quantity::parse("1e3")->format() == QuantityFormat::DecimalExponent));
  BOOST_TEST(Quantity::parse("-0")->to_string() == "0");
}

BOOST_AUTO_TEST_CASE(inputs_kubernetes_echoes_verbatim) {
  // Kubernetes keeps the input string when its int64 fast path finds it canonical-looking.
  BOOST_TEST(canonical("1.500") == "1.500");
  BOOST_TEST(canonical("+1") == "+1");
  BOOST_TEST(canonical("01") == "01");
  BOOST_TEST(canonical("1e0") == "1e0");
  BOOST_TEST(canonical("12Ki") == "12Ki");
  BOOST_TEST(canonical("8Ki") == "8Ki");  // recomputed (value divisible by 8), same text
  BOOST_TEST(canonical("1.5") == "1500m");
}

BOOST_AUTO_TEST_CASE(rounding_and_caps_follow_kubernetes) {
  BOOST_TEST(canonical("0.0000000001") == "1n");  // non-zero rounds up to the smallest unit
  BOOST_TEST(canonical("-0.0000000001") == "-1n");
  BOOST_TEST(canonical("16Ei") == "9223372036854775807");  // binary values cap at 2^63-1
  BOOST_TEST(canonical("1000E") == "1e21");  // past "E", DecimalSI falls back to e-notation
  BOOST_TEST(canonical("0.5Ki") == "512");
  BOOST_TEST(canonical("1.5Ki") == "1536");
  BOOST_TEST(canonical("1025Ki") == "1025Ki");
}

// Found by fuzzing (tests/fuzz/regressions/quantity): Kubernetes prints a binary amount that is
// no whole multiple of 1024 with no suffix, and that string then reads as decimal.
BOOST_AUTO_TEST_CASE(a_binary_amount_printed_bare_reads_back_as_decimal) {
  BOOST_TEST(canonical("3062.5Ki") == "3136000");
  BOOST_TEST(canonical("3136000") == "3136k");
  BOOST_TEST(canonical("3136k") == "3136k");
}

BOOST_AUTO_TEST_CASE(a_capped_amount_remembers_what_was_written) {
  BOOST_TEST(Quantity::parse("16Ei")->capped_from() == "16Ei");
  BOOST_TEST(Quantity::parse("-99999999999999999999999Ki")->capped_from() ==
             "-99999999999999999999999Ki");
  BOOST_TEST(Quantity::parse("7Ei")->capped_from().empty());  // below the cap: exact
  BOOST_TEST(Quantity::parse("99999999999999999999999")->capped_from().empty());  // decimal
}

BOOST_AUTO_TEST_CASE(bad_forms_get_kubernetes_errors) {
  BOOST_TEST(static_cast<int>(error_of("")) == static_cast<int>(QuantityError::FormatWrong));
  BOOST_TEST(static_cast<int>(error_of("1 ")) == static_cast<int>(QuantityError::FormatWrong));
  BOOST_TEST(static_cast<int>(error_of("1.1.M")) == static_cast<int>(QuantityError::FormatWrong));
  BOOST_TEST(static_cast<int>(error_of("1Qi")) == static_cast<int>(QuantityError::FormatWrong));
  BOOST_TEST(static_cast<int>(error_of("1Mii")) == static_cast<int>(QuantityError::Suffix));
  BOOST_TEST(static_cast<int>(error_of("5e")) == static_cast<int>(QuantityError::Suffix));
  BOOST_TEST(static_cast<int>(error_of("1e99999999999999999999")) ==
             static_cast<int>(QuantityError::Suffix));
  BOOST_TEST(static_cast<int>(error_of("1e40")) == static_cast<int>(QuantityError::OutOfRange));
  BOOST_TEST(std::string(unisched::model::describe(QuantityError::Suffix)) ==
             "unable to parse quantity's suffix");
}

BOOST_AUTO_TEST_CASE(sizes_written_as_people_write_them_get_a_suggestion) {
  using unisched::model::quantity_suggestion;
  BOOST_TEST(quantity_suggestion("2GB") == " (did you mean \"2G\" or \"2Gi\"?)");
  BOOST_TEST(quantity_suggestion("512 MiB") == " (did you mean \"512Mi\"?)");
  BOOST_TEST(quantity_suggestion("4gb") == " (did you mean \"4G\" or \"4Gi\"?)");
  BOOST_TEST(quantity_suggestion("1.5kb") == " (did you mean \"1.5k\" or \"1.5Ki\"?)");
  BOOST_TEST(quantity_suggestion("1 ") == " (did you mean \"1\"?)");
  BOOST_TEST(quantity_suggestion("lots").empty());
  BOOST_TEST(quantity_suggestion("2GHz").empty());
  BOOST_TEST(quantity_suggestion("").empty());
  BOOST_TEST(quantity_suggestion("B").empty());
}

BOOST_AUTO_TEST_CASE(huge_negative_exponent_rounds_up_without_blowing_up) {
  BOOST_TEST(canonical("5e-1000000000") == "1e-9");
  BOOST_TEST(canonical("5.0e-1000000000") == "1e-9");
  BOOST_TEST(canonical("0e1000000000") == "0");
}

BOOST_AUTO_TEST_CASE(scaled_values_round_away_from_zero) {
  BOOST_TEST(*Quantity::parse("1500u")->milli_value() == 2);
  BOOST_TEST(*Quantity::parse("-1500u")->milli_value() == -2);
  BOOST_TEST(*Quantity::parse("0.1")->value() == 1);
  BOOST_TEST(!Quantity::parse("10E")->milli_value().has_value());
  BOOST_TEST(Quantity::from_milli(250).to_string() == "250m");
  BOOST_TEST(Quantity::from_units(int64_t{3} << 30, QuantityFormat::BinarySI).to_string() == "3Gi");
}

BOOST_AUTO_TEST_CASE(comparison_ignores_format) {
  BOOST_TEST((*Quantity::parse("1Gi") == *Quantity::parse("1073741824")));
  BOOST_TEST((*Quantity::parse("999m") < *Quantity::parse("1")));
}

BOOST_AUTO_TEST_SUITE_END()

// Its own suite, so ctest reports Kubernetes' vectors on their own (tests/data/k8s-quantity).
BOOST_AUTO_TEST_SUITE(quantity_kubernetes_vectors)

BOOST_AUTO_TEST_CASE(every_line_of_cases_tsv) {
  std::ifstream file(unisched::testing::vendored_path("k8s-quantity/cases.tsv"));
  std::string line;
  int checked = 0;
  while (std::getline(file, line)) {
    const auto tab = line.find('\t');
    BOOST_TEST_REQUIRE(tab != std::string::npos, "malformed vector line: " << line);
    const std::string input = line.substr(0, tab);
    const std::string expected = line.substr(tab + 1);
    const auto parsed = Quantity::parse(input);
    if (expected == "ERROR") {
      BOOST_TEST(!parsed.has_value(), "'" << input << "' must be rejected");
    } else {
      BOOST_TEST_REQUIRE(parsed.has_value(), "'" << input << "' must parse");
      BOOST_TEST(parsed->to_string() == expected, "input '" << input << "'");
    }
    ++checked;
  }
  BOOST_TEST(checked == 138);
}

BOOST_AUTO_TEST_SUITE_END()
