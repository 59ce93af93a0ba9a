// The YAML/KRM decoder as the hub and the CLI use it (runtime::load_manifest_text: profiles,
// requests and quotas, several documents per text). Whatever the text, each problem is reported
// on one line, and each accepted manifest written back in canonical YAML or JSON reads back
// without problems and writes the same again.
#include <spdlog/spdlog.h>

#include "runtime/manifest_loader.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using unisched::model::Manifest;
using unisched::model::OutputFormat;
using unisched::runtime::ManifestSet;

void check_round_trip(const Manifest& manifest, OutputFormat format) {
  const std::string written = unisched::model::render_manifests({manifest}, format);
  ManifestSet again;
  unisched::runtime::load_manifest_text(written, "canonical", again);
  std::string problems;
  for (const auto& problem : again.problems) {
    problems += problem.to_string() + "\n";
  }
  unisched::fuzz::check(again.problems.empty() && again.manifests.size() == 1,
                        "a manifest's canonical form reads back whole", written + problems);
  const std::string rewritten =
      unisched::model::render_manifests({again.manifests.front().manifest}, format);
  unisched::fuzz::check(rewritten == written, "the canonical form is a fixed point",
                        written + "\n--- became ---\n" + rewritten);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  spdlog::set_level(spdlog::level::off);
  ManifestSet set;
  unisched::runtime::load_manifest_text(unisched::fuzz::as_text(data, size), "fuzz.yaml", set);
  for (const auto& problem : set.problems) {
    const std::string line = problem.to_string();
    unisched::fuzz::check(line.find('\n') == std::string::npos, "a problem is one line", line);
  }
  for (const auto& loaded : set.manifests) {
    check_round_trip(loaded.manifest, OutputFormat::Yaml);
    check_round_trip(loaded.manifest, OutputFormat::Json);
  }
  return 0;
}
