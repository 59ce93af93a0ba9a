// The hub's book of submitted requests: what was accepted, what was decided, and (with a
// store) what survives a restart of the hub. Plain C++ over the wire types; the hub actor
// owns one.
//
// The store (runtime/record_store.hpp: the journal file, or memory in tests) gets a
// RequestStatus record, keyed by request, on every accept and every decision, flushed each time.
// On start the last record per request wins: decided requests come
// back as they were (recovered); requests still undecided when the hub stopped are decided again,
// each under a new attempt (model/request_attempt.hpp) whose placements are its own, so nothing
// an earlier attempt placed is carried out for it (the hub has that released on every cluster:
// take_recovered()). A store that cannot be read or written stops the start; once running, a
// request is accepted only after its record is durable.
#pragma once

#include <absl/status/status.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "messages/unisched.pb.h"
#include "model/cluster_profile.hpp"
#include "model/scheduling_quota.hpp"
#include "model/scheduling_request.hpp"
#include "runtime/manifest_loader.hpp"
#include "runtime/record_store.hpp"

namespace unisched::runtime {

class RequestBook {
 public:
  /// The most requests the book keeps by default. When it is full, the oldest decided request
  /// is forgotten to make room; when every request in it is undecided, new ones are refused.
  static constexpr size_t kDefaultCapacity = 100'000;

  /// Keeps what must survive the hub in `store`; null: nothing survives the hub.
  explicit RequestBook(std::shared_ptr<RecordStore> store, size_t capacity = kDefaultCapacity);
  /// The same over the journal file `journal_path` (a JournalStore); empty: no store.
  explicit RequestBook(const std::string& journal_path = {}, size_t capacity = kDefaultCapacity);

  /// Reads the store back, rewrites it compactly (one record per request) and keeps writing to
  /// it. Requests undecided at the last stop start their next attempt. For a journal: a torn tail
  /// is cut, with a warning; damage followed by intact records is an error naming where it is,
  /// unless `skip_damaged` (then a warning). An error also when the store cannot be read or
  /// written: the caller must not run without the durability it asked for.
  absl::Status recover(bool skip_damaged, std::vector<std::string>& warnings);

  struct ToSchedule {
    std::string id;  ///< the attempt's key: what its scheduler decides it under
    model::SchedulingRequestSpec spec;
  };
  /// A request decided afresh: its new attempt to schedule, and the key of the attempt it
  /// replaces, whose placements are to be released everywhere.
  struct Retry {
    ToSchedule work;
    std::string replaced;
  };

  /// What a submission brought besides requests.
  struct Declarations {
    std::vector<model::ClusterResourceProfile> profiles;
    struct Quota {
      ManifestSource source;  ///< where it was written, for problems the caller finds
      model::SchedulingQuota quota;
    };
    std::vector<Quota> quotas;  ///< for the caller to record and enforce
  };

  /// Validates every document of `submission`. Valid new requests are accepted (PENDING), on
  /// disk before this returns (one sync for the whole submission), and returned through
  /// `to_schedule`; a request whose name is known is refused unless it is an
  /// apply of the same spec (then it is listed, unchanged). Valid profiles and quotas are
  /// returned through `declared`. Problems name the client's file, line, document and field;
  /// one bad document never loses the others.
  v1::SubmissionReply submit(const v1::ManifestSubmission& submission,
                             std::vector<ToSchedule>& to_schedule, Declarations& declared);

  /// Records a scheduler's decision, made under an attempt's key; false for an unknown request,
  /// an earlier attempt's decision, or a request an earlier hub gave up (LOST). A QUEUED one is
  /// not final: the request waits for quota, and its reason is the detail.
  bool decide(const v1::SchedulingDecision& decision);

  /// Decides these requests afresh under their next attempts, because the decisions under way
  /// were lost (their scheduler stopped) or a placement will never run: what each placed is
  /// dropped from it (for the caller to release) and it is PENDING again with `reason` as its
  /// detail. On disk before this returns (one sync for them all), so no later start reuses an
  /// attempt. Requests unknown or ended (unschedulable, finished, lost) are left out.
  std::vector<Retry> retry(const std::vector<std::string>& ids, const std::string& reason);
  /// The requests recover() found undecided, each under its next attempt, oldest first; once.
  std::vector<Retry> take_recovered() { return std::exchange(recovered_, {}); }

  /// Records that these placements' work ended on `cluster` ("<request>/<n>..."): only replicas
  /// the decision put on that cluster count, so no cluster can end another's work. A request
  /// whose placed replicas all ended is FINISHED. Work can end before its decision (or the update
  /// of a decision that placed a replica again) arrives: such ends are kept and count once the
  /// decision names their placements.
  /// Returns the requests that changed.
  std::vector<std::string> finish(const std::string& cluster,
                                  const std::vector<std::string>& placement_ids);

  /// What decided, unfinished work holds of its queues' budgets (to rebuild the quota ledger
  /// after a restart): one take per request, its unfinished placements.
  std::vector<v1::QuotaTakeRequest> quota_holdings() const;

  const v1::RequestStatus* find(const std::string& id) const;
  /// The key of the request's current attempt; empty when it is unknown.
  std::string attempt_of(const std::string& id) const;
  v1::RequestList list() const;
  bool journal_failed() const { return journal_failed_; }

 private:
  /// Writes `status` to the store, if there is one; false when that failed.
  bool append(const v1::RequestStatus& status);
  /// Makes what was appended durable; false (and no more appends) when it cannot be.
  bool synced();
  /// Undoes the acceptance of `batch`, which could not be made durable: refused instead.
  void take_back(const std::map<std::string, ManifestSource>& batch, v1::SubmissionReply& reply,
                 std::vector<ToSchedule>& to_schedule);
  /// Makes room for one more request: forgets the oldest decided one if the book is full. False
  /// when it is full of undecided requests.
  bool make_room();
  void note_decided(const std::string& id);
  /// Pending or waiting for quota, or placed with a refused replica being placed again.
  static bool undecided(const v1::RequestStatus& status);
  /// Moves `status` to its next attempt, PENDING with `reason` (not yet journalled).
  Retry start_attempt(v1::RequestStatus& status, const std::string& reason);
  static bool placed_there(const v1::RequestStatus& status, const std::string& cluster,
                           const std::string& placement);
  /// Adds `placement` to the request's finished ones; false when it was there already.
  static bool note_finished(v1::RequestStatus& status, const std::string& placement);
  /// FINISHED once every placed replica ended; journalled either way.
  void mark_if_finished(v1::RequestStatus& status);

  /// Where the store keeps the records, for messages.
  std::string store_name() const;

  std::shared_ptr<RecordStore> store_;
  bool journal_failed_ = false;
  std::map<std::string, v1::RequestStatus> requests_;
  size_t capacity_;
  uint64_t sequence_ = 0;                               // acceptance order
  std::map<std::string, uint64_t> accepted_at_;         // id -> its place in that order
  std::set<std::pair<uint64_t, std::string>> decided_;  // decided requests, oldest first
  // Ends reported for undecided requests: request -> (cluster, placement).
  std::map<std::string, std::set<std::pair<std::string, std::string>>> ended_early_;
  uint64_t forgotten_ = 0;
  uint64_t refused_full_ = 0;
  std::vector<Retry> recovered_;  // undecided at the last stop, each under its next attempt
};

}  // namespace unisched::runtime
