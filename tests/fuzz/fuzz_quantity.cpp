// The quantity parser (model/quantity): any text either fails with a reason or parses to an
// amount whose canonical string parses back to the same amount and, from its second print on,
// prints the same.
#include "model/quantity.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using unisched::model::Quantity;
using unisched::model::QuantityFormat;

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
  // As in Kubernetes, a binary amount printed with no suffix ("3062.5Ki" prints "3136000") reads
  // back as decimal and prints in decimal ("3136k"); from there on the string stays put.
  const std::string twice = again->to_string();
  const bool bare = !canonical.empty() && canonical.back() >= '0' && canonical.back() <= '9';
  unisched::fuzz::check(
      twice == canonical || (bare && parsed->format() == QuantityFormat::BinarySI),
      "only a binary amount printed bare changes when read back",
      std::string(text) + " -> " + canonical + " -> " + twice);
  const auto third = Quantity::parse(twice);
  unisched::fuzz::check(third.has_value() && third->to_string() == twice,
                        "the canonical string is a fixed point from its second print on",
                        canonical + " -> " + twice);
  return 0;
}
