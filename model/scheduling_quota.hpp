// SchedulingQuota (scheduling.cluster.io/v1): a queue's budget across every cluster, as design
// document 3.2 asks of the resource model. Named apart from core ResourceQuota, whose meaning (one
// namespace of one cluster) it does not share.
//
//   spec:
//     queue: team-a              # required: the requests whose spec.queue is this
//     cohort: research           # optional: members lend each other unused budget
//     weight: 1                  # fair-sharing weight in the cohort, 1..1000 (default 1)
//     hard: {cpu: "256", memory: 1Ti, nvidia.com/gpu: "64"}   # required, at least one resource
//     borrowingLimit: {nvidia.com/gpu: "16"}   # with a cohort: at most this over `hard`
//     lendingLimit: {nvidia.com/gpu: "32"}     # with a cohort: at most this of `hard` lent
//     caps:                                    # optional: budgets inside the budget
//     - region: eu-west                        # placements on clusters in eu-west ...
//       hard: {nvidia.com/gpu: "16"}           # ... hold at most 16 GPUs
//     - model: A100                            # devices of this model (matched as requests match)
//       hard: {nvidia.com/gpu: "48"}
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/field_error.hpp"
#include "model/krm_common.hpp"
#include "model/quantity.hpp"

namespace unisched::model {

/// At most `hard` in the placements that match every selector given: on the cluster, in the
/// region or zone, on devices of the accelerator model.
struct QuotaCap {
  std::string cluster;
  std::string region;
  std::string zone;
  std::string model;
  std::map<std::string, Quantity> hard;
};

struct SchedulingQuotaSpec {
  std::string queue;
  std::string cohort;
  int64_t weight = 1;
  std::map<std::string, Quantity> hard;
  std::map<std::string, Quantity> borrowing_limit;
  std::map<std::string, Quantity> lending_limit;
  std::vector<QuotaCap> caps;
};

struct SchedulingQuota {
  ObjectMeta metadata;
  SchedulingQuotaSpec spec;
};

/// Checks names (queue and cohort as DNS-1123 labels; resources as Kubernetes names them:
/// cpu, memory, or an extended resource such as nvidia.com/gpu), amounts (cpu in whole
/// milli-cores, everything else in whole units, none negative), and that the limits name only
/// resources of `hard`, lend no more than `hard`, and come with a cohort; each cap names at least
/// one selector and one resource.
FieldErrors validate_and_default(SchedulingQuota& quota);

/// An amount of a quota's ledger as people write it: memory (held in bytes) in binary SI
/// ("64Gi"), anything else (held in milli-units) as a quantity ("8", "500m").
std::string quota_amount_text(const std::string& resource, int64_t amount);

}  // namespace unisched::model
