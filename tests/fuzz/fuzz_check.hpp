// What every fuzz target shares: the libFuzzer entry point's signature, and a check that stops
// the run with the property that failed (libFuzzer then saves the input that broke it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace unisched::fuzz {

/// Stops the process, naming the property and what broke it, when `holds` is false.
inline void check(bool holds, const char* property, const std::string& detail = {}) {
  if (holds) {
    return;
  }
  std::fprintf(stderr, "fuzz property failed: %s\n%s\n", property, detail.c_str());
  std::abort();
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace unisched::fuzz
