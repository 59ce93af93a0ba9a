#include "tools/bench/etcd/etcd_kv.hpp"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>

#include "etcd/etcdserver/etcdserverpb/rpc.grpc.pb.h"

namespace unisched::bench {
namespace {

constexpr size_t kMaxOperationsPerTxn = 128;

std::unique_ptr<grpc::ClientContext> context_within(std::chrono::milliseconds limit) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + limit);
  return context;
}

std::string describe(const grpc::Status& status) {
  return "etcd: " + std::to_string(static_cast<int>(status.error_code())) + " " +
         status.error_message();
}

}  // namespace

struct EtcdKv::Stub {
  std::unique_ptr<etcdserverpb::KV::Stub> kv;
};

EtcdKv::EtcdKv(const std::string& endpoint) : stub_(std::make_unique<Stub>()) {
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a connection per client
  stub_->kv = etcdserverpb::KV::NewStub(
      grpc::CreateCustomChannel(endpoint, grpc::InsecureChannelCredentials(), arguments));
}

EtcdKv::~EtcdKv() = default;

bool EtcdKv::ready() {
  etcdserverpb::RangeRequest request;
  request.set_key("unisched-bench-ready");
  etcdserverpb::RangeResponse response;
  return stub_->kv->Range(context_within(std::chrono::milliseconds(500)).get(), request, &response)
      .ok();
}

bool EtcdKv::put_all(const std::vector<std::pair<std::string, std::string>>& pairs,
                     std::string& error) {
  for (size_t first = 0; first < pairs.size(); first += kMaxOperationsPerTxn) {
    etcdserverpb::TxnRequest txn;
    for (size_t i = first; i < std::min(pairs.size(), first + kMaxOperationsPerTxn); ++i) {
      etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
      put->set_key(pairs[i].first);
      put->set_value(pairs[i].second);
    }
    etcdserverpb::TxnResponse response;
    const grpc::Status status =
        stub_->kv->Txn(context_within(std::chrono::seconds(10)).get(), txn, &response);
    if (!status.ok()) {
      error = describe(status);
      return false;
    }
  }
  return true;
}

bool EtcdKv::put(const std::string& key, const std::string& value, std::string& error) {
  etcdserverpb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  etcdserverpb::PutResponse response;
  const grpc::Status status =
      stub_->kv->Put(context_within(std::chrono::seconds(10)).get(), request, &response);
  if (!status.ok()) {
    error = describe(status);
  }
  return status.ok();
}

int64_t EtcdKv::revision(const std::string& key, std::string& error) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  request.set_keys_only(true);
  etcdserverpb::RangeResponse response;
  const grpc::Status status =
      stub_->kv->Range(context_within(std::chrono::seconds(10)).get(), request, &response);
  if (!status.ok()) {
    error = describe(status);
    return 0;
  }
  return response.kvs().empty() ? 0 : response.kvs(0).mod_revision();
}

EtcdKv::Cas EtcdKv::compare_and_put(const std::string& key, int64_t& revision,
                                    const std::string& value, std::string& error) {
  etcdserverpb::TxnRequest txn;
  etcdserverpb::Compare* compare = txn.add_compare();
  compare->set_key(key);
  compare->set_target(etcdserverpb::Compare::MOD);
  compare->set_result(etcdserverpb::Compare::EQUAL);
  compare->set_mod_revision(revision);
  etcdserverpb::PutRequest* put = txn.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
  txn.add_failure()->mutable_request_range()->set_key(key);  // the revision to try next
  etcdserverpb::TxnResponse response;
  const grpc::Status status =
      stub_->kv->Txn(context_within(std::chrono::seconds(10)).get(), txn, &response);
  if (!status.ok()) {
    error = describe(status);
    return Cas::Failed;
  }
  if (response.succeeded()) {
    revision = response.header().revision();  // the put's revision is the key's mod_revision
    return Cas::Committed;
  }
  const auto& kvs = response.responses(0).response_range().kvs();
  revision = kvs.empty() ? 0 : kvs.Get(0).mod_revision();
  return Cas::Conflict;
}

}  // namespace unisched::bench
