#include "tools/unisched/manifest_submission.hpp"

#include <caf/scoped_actor.hpp>

#include <cstdio>

#include "messages/caf_types.hpp"
#include "model/printable.hpp"
#include "tools/unisched/hub_client.hpp"

namespace unisched::cli {
namespace {

using namespace unisched::atoms;

std::string phase_name(v1::RequestStatus::Phase phase) {
  std::string name = v1::RequestStatus::Phase_Name(phase);
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

/// "placed: 2 replicas (a100-uswest/node-3, ...)" or "unschedulable: reason; reason".
std::string describe_outcome(const v1::RequestStatus& status) {
  std::string text = phase_name(status.phase());
  const auto& decision = status.decision();
  if (decision.replicas_size() > 0) {
    text += ": " + std::to_string(decision.replicas_size()) + " replicas (";
    for (int i = 0; i < decision.replicas_size() && i < 4; ++i) {
      text +=
          (i == 0 ? "" : ", ") + decision.replicas(i).cluster() + "/" + decision.replicas(i).node();
    }
    text += decision.replicas_size() > 4 ? ", ...)" : ")";
  }
  if (!status.detail().empty()) {
    text += ": " + status.detail();
  }
  for (int i = 0; i < decision.reasons_size() && i < 5; ++i) {
    text += (i == 0 ? " - " : "; ") + decision.reasons(i);
  }
  return text;
}

}  // namespace

std::vector<Flag> manifest_submission_flags(bool with_wait) {
  std::vector<Flag> flags = {{"filename", 'f', "FILE", true,
                              "a file of SchedulingRequests (and, for apply, profiles); "
                              "- for standard input"}};
  if (with_wait) {
    flags.push_back({"wait", '\0', "", false, "wait for each request's decision"});
    flags.push_back({"timeout", '\0', "DURATION", false, "how long --wait waits (default 60s)"});
  }
  for (Flag& flag : hub_client_flags()) {
    flags.push_back(std::move(flag));
  }
  return flags;
}

namespace {

/// One submission per -f FILE ("-": standard input); nullopt when one cannot be read.
std::optional<std::vector<v1::ManifestSubmission>> read_submissions(
    const std::vector<std::string>& files, bool apply) {
  std::vector<v1::ManifestSubmission> submissions;
  for (const std::string& file : files) {
    const auto text = read_input(file);
    if (!text) {
      return std::nullopt;
    }
    v1::ManifestSubmission submission;
    submission.set_source(file == "-" ? "<stdin>" : file);
    submission.set_manifest(*text);
    submission.set_apply(apply);
    submissions.push_back(std::move(submission));
  }
  return submissions;
}

/// Sends each submission and prints what the hub made of it; the accepted requests' ids go to
/// `accepted`. False when any had a problem.
bool submit_all(caf::scoped_actor& self, const HubConnection& connection,
                const std::vector<v1::ManifestSubmission>& submissions,
                std::vector<std::string>& accepted) {
  bool ok = true;
  for (const auto& submission : submissions) {
    self->request(connection.hub, connection.submission_wait, submission)
        .receive(
            [&](v1::SubmissionReply& reply) {
              for (const std::string& problem : reply.problems()) {
                std::fprintf(stderr, "%s\n", problem.c_str());
              }
              ok = ok && reply.problems_size() == 0;
              if (reply.profiles() > 0) {
                std::printf("%u clusterresourceprofiles declared\n", reply.profiles());
              }
              for (const auto& status : reply.accepted()) {
                const bool known_before = status.phase() != v1::RequestStatus::PENDING;
                std::printf("schedulingrequest/%s %s\n", status.request_id().c_str(),
                            known_before ? "unchanged" : "created");
                accepted.push_back(status.request_id());
              }
            },
            [&](caf::error& failure) {
              std::fprintf(stderr, "error: %s: %s\n", submission.source().c_str(),
                           connection.system->render(failure).c_str());
              ok = false;
            });
  }
  return ok;
}

/// --wait: prints each accepted request's outcome once decided; false unless all were placed
/// within `timeout`.
bool wait_for_decisions(caf::scoped_actor& self, const HubConnection& connection,
                        const std::vector<std::string>& accepted,
                        std::chrono::milliseconds timeout) {
  bool ok = true;
  self->monitor(connection.hub);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& id : accepted) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      std::printf("schedulingrequest/%s not decided within --timeout\n", id.c_str());
      ok = false;
      continue;
    }
    self->request(connection.hub, left, requests_atom_v, id, true)
        .receive(
            [&](v1::RequestStatus& status) {
              // Node and cluster names come from agents: escaped, as `get` prints them.
              std::printf("schedulingrequest/%s %s\n", id.c_str(),
                          model::printable(describe_outcome(status)).c_str());
              ok = ok && status.phase() == v1::RequestStatus::PLACED;
            },
            [&](caf::error& failure) {
              // The request was accepted; whether it was placed is for the hub to tell later.
              std::printf(
                  "schedulingrequest/%s unknown: no decision received (%s); it was accepted, so "
                  "`unisched get requests` reports it once the hub answers\n",
                  id.c_str(), connection.system->render(failure).c_str());
              ok = false;
            });
  }
  return ok;
}

}  // namespace

int send_manifests(const ParsedArgs& args, bool apply) {
  const std::vector<std::string> files = args.values("filename");
  if (files.empty()) {
    std::fprintf(stderr, "error: -f FILE is required\n");
    return 2;
  }
  std::chrono::milliseconds timeout{60'000};
  if (args.has("timeout") && !parse_duration(args.value("timeout"), timeout)) {
    std::fprintf(stderr, "error: --timeout must be a duration such as 30s\n");
    return 2;
  }
  const auto submissions = read_submissions(files, apply);
  if (!submissions) {
    return 1;
  }
  const auto connection = connect_to_hub(args);
  if (!connection) {
    return 1;
  }
  caf::scoped_actor self{*connection->system};
  std::vector<std::string> accepted;
  bool ok = submit_all(self, *connection, *submissions, accepted);
  if (args.has("wait")) {
    ok = wait_for_decisions(self, *connection, accepted, timeout) && ok;
  }
  return ok ? 0 : 1;
}

}  // namespace unisched::cli
