// An error that arrives as a message rather than as the answer to a request (a peer that did not
// understand something this actor sent it, say) ends a CAF 0.17 actor by default. Long-lived
// actors log it instead: one confused peer must not take a cluster's view or a scheduler down.
#pragma once

#include <spdlog/spdlog.h>
#include <caf/error.hpp>

#include <string>

namespace unisched::actors {

template <class Self>
void log_stray_errors(Self* self, std::string who) {
  self->set_error_handler([who = std::move(who)](caf::error& error) {
    spdlog::warn("{}: an error message arrived and is ignored: {}", who, to_string(error));
  });
}

}  // namespace unisched::actors
