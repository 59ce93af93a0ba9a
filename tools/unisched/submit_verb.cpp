// unisched submit: send requests to a running hub and, with --wait, wait for the decisions.
#include "tools/unisched/manifest_submission.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {

Verb submit_verb() {
  return Verb{
      "submit",
      "Submit scheduling requests to a running hub",
      "unisched submit -f FILE [--wait [--timeout 60s]] [--hub HOST:PORT]",
      "Sends the file's SchedulingRequests to the hub, which validates them (errors name the\n"
      "file, line and field; valid documents are accepted even when others are not) and\n"
      "schedules them. A name already accepted is refused. With --wait, prints each decision\n"
      "and exits 0 only when every request was placed in full.",
      manifest_submission_flags(true),
      [](const ParsedArgs& args) { return send_manifests(args, false); },
  };
}

}  // namespace unisched::cli
