// A request's attempts. When the centre decides a request afresh (a crash took the decision
// under way, or a placement of it will never run), the new decision is a new attempt whose
// placements have ids of their own: what an earlier attempt placed is released by its name and
// never mistaken for the new attempt's. Request names hold no '~' (RFC 1123), so an attempt's
// key, "<request>~<attempt>", reads back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace unisched::model {

struct RequestAttempt {
  std::string request;
  uint32_t attempt = 0;
};

/// The name a scheduler decides the attempt under, and its placements' prefix: the request's
/// name for attempt 0 (placement ids as they were before attempts), else "<request>~<attempt>".
std::string attempt_key(const std::string& request, uint32_t attempt);
/// The request and attempt of a key; a key without a well-formed "~<attempt>" is attempt 0 of
/// a request of that name.
RequestAttempt parse_attempt_key(std::string_view key);

/// The attempt a placement belongs to, as its key: its id up to the first '/' ("<key>/<n>",
/// and a replica placed again "<key>/<n>-again/<m>").
std::string attempt_of_placement(const std::string& placement_id);
/// The request a placement belongs to, whichever attempt placed it.
std::string request_of_placement(const std::string& placement_id);

}  // namespace unisched::model
