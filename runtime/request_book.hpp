// The hub's book of submitted requests: what was accepted, what was decided, and (with a
// journal) what survives a restart of the hub. Plain C++ over the wire types; the hub actor
// owns one.
//
// The journal is a file of length-delimited RequestStatus records, appended on every accept and
// every decision and flushed each time. On start the last record per request wins: decided
// requests come back as they were (recovered); requests still pending when the hub stopped come
// back as LOST, never silently dropped and never scheduled twice (placements made before the
// stop remain on their clusters under "<request>/<n>").
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "messages/unisched.pb.h"
#include "model/cluster_profile.hpp"
#include "model/scheduling_request.hpp"

namespace unisched::runtime {

class RequestBook {
 public:
  /// `journal_path` empty: nothing survives the hub.
  explicit RequestBook(std::string journal_path = {});

  /// Reads the journal; the problems found (a torn last record, an unreadable file). Requests
  /// pending at the last stop become LOST.
  std::vector<std::string> recover();

  struct ToSchedule {
    std::string id;
    model::SchedulingRequestSpec spec;
  };

  /// Validates every document of `submission`. Valid new requests are accepted (PENDING) and
  /// returned through `to_schedule`; a request whose name is known is refused unless it is an
  /// apply of the same spec (then it is listed, unchanged). Valid profiles are returned through
  /// `profiles`. Problems name the client's file, line, document and field; one bad document
  /// never loses the others.
  v1::SubmissionReply submit(const v1::ManifestSubmission& submission,
                             std::vector<ToSchedule>& to_schedule,
                             std::vector<model::ClusterResourceProfile>& profiles);

  /// Records a scheduler's decision; false for an unknown request.
  bool decide(const v1::SchedulingDecision& decision);

  const v1::RequestStatus* find(const std::string& id) const;
  v1::RequestList list() const;
  bool journal_failed() const { return journal_failed_; }

 private:
  void append(const v1::RequestStatus& status);

  std::string journal_path_;
  std::ofstream journal_;
  bool journal_failed_ = false;
  std::map<std::string, v1::RequestStatus> requests_;
};

}  // namespace unisched::runtime
