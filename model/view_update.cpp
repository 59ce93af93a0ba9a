#include "model/view_update.hpp"

namespace unisched::model {

SharedNodeChange share(NodeChange change) {
  return {change.kind, std::make_shared<const NodeState>(std::move(change.node))};
}

}  // namespace unisched::model
