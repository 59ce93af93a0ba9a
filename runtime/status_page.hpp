// The status page served at `/` of `--metrics HOST:PORT`: one HTML document with its style and
// script inline (no build step, nothing fetched but /status.json, which it polls each second).
#pragma once

namespace unisched::runtime {

extern const char* const kStatusPage;

}  // namespace unisched::runtime
