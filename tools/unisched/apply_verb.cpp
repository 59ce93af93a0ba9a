// unisched apply: declare profiles and requests at a running hub, idempotently.
#include "tools/unisched/manifest_submission.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {

Verb apply_verb() {
  return Verb{
      "apply",
      "Declare cluster profiles and requests at a running hub",
      "unisched apply -f FILE [--hub HOST:PORT]",
      "Sends the file's documents to the hub, which validates them like `unisched validate`.\n"
      "ClusterResourceProfiles are recorded as declared clusters (listed by `get clusters`\n"
      "until their agent registers). New SchedulingRequests are accepted and scheduled; one\n"
      "already accepted with the same spec is left unchanged, so applying a file twice is\n"
      "harmless. A request cannot be changed once accepted.",
      manifest_submission_flags(false),
      [](const ParsedArgs& args) { return send_manifests(args, true); },
  };
}

}  // namespace unisched::cli
