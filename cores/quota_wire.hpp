// The quota module's types on the wire: the one place they are converted to and from the
// protobuf messages schedulers and the ledger exchange.
#pragma once

#include <string>

#include "cores/quota_amounts.hpp"
#include "messages/unisched.pb.h"

namespace unisched::actors {

ResourceAmounts amounts_of(const google::protobuf::Map<std::string, int64_t>& amounts);
void fill(google::protobuf::Map<std::string, int64_t>& out, const ResourceAmounts& amounts);

v1::QuotaPlacement to_wire(const std::string& id, const QuotaPlacement& placement);
QuotaTake take_of(const v1::QuotaTakeRequest& request);
v1::QuotaTakeRequest to_wire(const QuotaTake& take);
v1::QuotaLeaseUse to_wire(const QuotaLeaseUse& use);

}  // namespace unisched::actors
