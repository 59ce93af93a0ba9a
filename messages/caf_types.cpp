#include "messages/caf_types.hpp"

#include "messages/errors.hpp"

#include <caf/actor_system_config.hpp>

namespace unisched::messages {

void register_message_types(caf::actor_system_config& config) {
  register_error_category(config);
  config.add_message_type<v1::IncrementalUpdate>("unisched.v1.IncrementalUpdate");
  config.add_message_type<v1::Ack>("unisched.v1.Ack");
  config.add_message_type<v1::SnapshotRequest>("unisched.v1.SnapshotRequest");
  config.add_message_type<v1::ClusterSnapshot>("unisched.v1.ClusterSnapshot");
  config.add_message_type<v1::HealthProbe>("unisched.v1.HealthProbe");
  config.add_message_type<v1::HealthStatus>("unisched.v1.HealthStatus");
  config.add_message_type<v1::ClusterSummary>("unisched.v1.ClusterSummary");
  config.add_message_type<v1::CommitRequest>("unisched.v1.CommitRequest");
  config.add_message_type<v1::CommitReply>("unisched.v1.CommitReply");
  config.add_message_type<v1::PlacementOrder>("unisched.v1.PlacementOrder");
  config.add_message_type<v1::ReleaseOrder>("unisched.v1.ReleaseOrder");
  config.add_message_type<v1::RefusedPlacement>("unisched.v1.RefusedPlacement");
  config.add_message_type<v1::SchedulingDecision>("unisched.v1.SchedulingDecision");
  config.add_message_type<v1::SchedulerSummary>("unisched.v1.SchedulerSummary");
  config.add_message_type<v1::SettledPlacements>("unisched.v1.SettledPlacements");
  config.add_message_type<v1::WorkloadReport>("unisched.v1.WorkloadReport");
  config.add_message_type<v1::ClusterList>("unisched.v1.ClusterList");
  config.add_message_type<v1::ClusterRegistration>("unisched.v1.ClusterRegistration");
  config.add_message_type<v1::ShardRegistration>("unisched.v1.ShardRegistration");
  config.add_message_type<v1::ClusterHome>("unisched.v1.ClusterHome");
  config.add_message_type<v1::ManifestSubmission>("unisched.v1.ManifestSubmission");
  config.add_message_type<v1::RequestStatus>("unisched.v1.RequestStatus");
  config.add_message_type<v1::SubmissionReply>("unisched.v1.SubmissionReply");
  config.add_message_type<v1::RequestList>("unisched.v1.RequestList");
  config.add_message_type<v1::ClusterViews>("unisched.v1.ClusterViews");
  config.add_message_type<v1::QuotaTakeRequest>("unisched.v1.QuotaTakeRequest");
  config.add_message_type<v1::QuotaTakeReply>("unisched.v1.QuotaTakeReply");
  config.add_message_type<v1::QuotaRelease>("unisched.v1.QuotaRelease");
  config.add_message_type<v1::QuotaAdmission>("unisched.v1.QuotaAdmission");
  config.add_message_type<v1::FinishedPlacements>("unisched.v1.FinishedPlacements");
  config.add_message_type<v1::QuotaDefinition>("unisched.v1.QuotaDefinition");
  config.add_message_type<v1::QuotaStatus>("unisched.v1.QuotaStatus");
  config.add_message_type<v1::QuotaList>("unisched.v1.QuotaList");
  config.add_message_type<v1::QuotaRestore>("unisched.v1.QuotaRestore");
  config.add_message_type<v1::QuotaLeaseUse>("unisched.v1.QuotaLeaseUse");
  config.add_message_type<v1::QuotaLeaseRevoke>("unisched.v1.QuotaLeaseRevoke");
  config.add_message_type<v1::GivenUpRequests>("unisched.v1.GivenUpRequests");
  config.add_message_type<v1::PlacementQuery>("unisched.v1.PlacementQuery");
  config.add_message_type<v1::PlacementReport>("unisched.v1.PlacementReport");
  config.add_message_type<ViewFeed>("unisched.ViewFeed");
  config.add_message_type<AgentUpdate>("unisched.AgentUpdate");
  config.add_message_type<AgentSnapshot>("unisched.AgentSnapshot");
}

}  // namespace unisched::messages
