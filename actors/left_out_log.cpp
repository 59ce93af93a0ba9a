#include "actors/left_out_log.hpp"

#include <spdlog/spdlog.h>

namespace unisched::actors {

void warn_left_out(const std::string& who, const model::NodeAdmission::News& news,
                   size_t left_out) {
  for (const model::LeftOutNode& node : news.told) {
    spdlog::warn("{}: {}", who, node.reason);
  }
  if (news.untold > 0) {
    spdlog::warn("{}: {} more nodes left out ({} in all)", who, news.untold, left_out);
  }
}

}  // namespace unisched::actors
