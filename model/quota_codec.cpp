#include "model/manifest_codec.hpp"

namespace unisched::model {
namespace {

void encode_amounts(std::string_view key, const std::map<std::string, Quantity>& amounts,
                    DocumentWriter& out) {
  if (amounts.empty()) {
    return;
  }
  out.key(key);
  out.begin_object();
  for (const auto& [name, amount] : amounts) {
    out.field(name, amount.to_string());
  }
  out.end_object();
}

QuotaCap decode_cap(YamlObject& object) {
  QuotaCap cap;
  cap.cluster = object.string("cluster").value_or("");
  cap.region = object.string("region").value_or("");
  cap.zone = object.string("zone").value_or("");
  cap.model = object.string("model").value_or("");
  cap.hard = object.quantity_map("hard", true);
  object.reject_unknown_fields();
  return cap;
}

void encode_caps(const std::vector<QuotaCap>& caps, DocumentWriter& out) {
  if (caps.empty()) {
    return;
  }
  out.key("caps");
  out.begin_list();
  for (const QuotaCap& cap : caps) {
    out.begin_object();
    const std::pair<std::string_view, const std::string*> selectors[] = {{"cluster", &cap.cluster},
                                                                         {"region", &cap.region},
                                                                         {"zone", &cap.zone},
                                                                         {"model", &cap.model}};
    for (const auto& [key, value] : selectors) {
      if (!value->empty()) {
        out.field(key, *value);
      }
    }
    encode_amounts("hard", cap.hard, out);
    out.end_object();
  }
  out.end_list();
}

}  // namespace

SchedulingQuota decode_quota(YamlObject& document) {
  SchedulingQuota quota;
  if (auto metadata = document.object("metadata", true)) {
    quota.metadata = decode_metadata(*metadata);
  }
  if (auto spec = document.object("spec", true)) {
    quota.spec.queue = spec->string("queue", true).value_or("");
    quota.spec.cohort = spec->string("cohort").value_or("");
    quota.spec.weight = spec->integer("weight").value_or(1);
    quota.spec.hard = spec->quantity_map("hard", true);
    quota.spec.borrowing_limit = spec->quantity_map("borrowingLimit");
    quota.spec.lending_limit = spec->quantity_map("lendingLimit");
    for (auto& cap : spec->objects("caps")) {
      quota.spec.caps.push_back(decode_cap(cap));
    }
    spec->reject_unknown_fields();
  }
  document.reject_unknown_fields("SchedulingQuota");
  return quota;
}

void encode_quota(const SchedulingQuota& quota, DocumentWriter& out) {
  out.begin_object();
  out.field("apiVersion", kApiVersion);
  out.field("kind", "SchedulingQuota");
  encode_metadata(quota.metadata, out);
  out.key("spec");
  out.begin_object();
  out.field("queue", quota.spec.queue);
  if (!quota.spec.cohort.empty()) {
    out.field("cohort", quota.spec.cohort);
  }
  out.field("weight", quota.spec.weight);
  encode_amounts("hard", quota.spec.hard, out);
  encode_amounts("borrowingLimit", quota.spec.borrowing_limit, out);
  encode_amounts("lendingLimit", quota.spec.lending_limit, out);
  encode_caps(quota.spec.caps, out);
  out.end_object();
  out.end_object();
}

}  // namespace unisched::model
