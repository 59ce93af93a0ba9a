// One way to tell of nodes left out of a cluster's view, at the centre and at its agent.
#pragma once

#include <string>

#include "model/node_admission.hpp"

namespace unisched::actors {

/// Warns of each node newly left out (its reason quotes its name) and counts the rest;
/// `who` is e.g. "cluster a" or "agent a".
void warn_left_out(const std::string& who, const model::NodeAdmission::News& news, size_t left_out);

}  // namespace unisched::actors
