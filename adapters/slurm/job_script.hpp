// What a placement runs on Slurm: the batch script made from the request's pod template, the
// one description of a workload for both Kubernetes and Slurm (the first container's command
// and args, as Kubernetes runs them). Plain C++.
#pragma once

#include <absl/status/statusor.h>

#include <string>

namespace unisched::adapters::slurm {

/// A /bin/sh batch script running the first container's command and args of `pod_template`
/// (JSON, as the request carries it), each argument quoted; without a template or a command,
/// one that holds the allocation until the placement is released. An error names the field.
absl::StatusOr<std::string> batch_script(const std::string& pod_template);

/// `text` quoted for /bin/sh: 'it'\''s'.
std::string shell_quoted(const std::string& text);

}  // namespace unisched::adapters::slurm
