// The quantity parser (model/quantity): any text either fails with a reason or parses to an
// amount whose canonical string parses back to the same amount and prints the same.
#include "model/quantity.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using unisched::model::Quantity;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = unisched::fuzz::as_text(data, size);
  const auto parsed = Quantity::parse(text);
  if (!parsed) {
    unisched::fuzz::check(describe(parsed.error()) != nullptr, "every error is described");
    return 0;
  }
  for (int scale : {-9, -6, -3, 0, 3, 6, 9}) {
    (void)parsed->scaled_value(scale);
  }
  const std::string canonical = parsed->to_string();
  const auto again = Quantity::parse(canonical);
  unisched::fuzz::check(again.has_value(), "the canonical string parses",
                        std::string(text) + " -> " + canonical);
  unisched::fuzz::check(*again == *parsed, "the canonical string keeps the amount",
                        std::string(text) + " -> " + canonical);
  unisched::fuzz::check(again->to_string() == canonical, "the canonical string is a fixed point",
                        canonical + " -> " + again->to_string());
  return 0;
}
