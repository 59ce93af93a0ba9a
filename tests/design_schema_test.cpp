// The design document's messages (messages/design_metadata.proto) carry nodes and cluster resources
// with the field numbers and types of unisched.proto, so the centre reads their bytes as its own.
#include <google/protobuf/descriptor.h>
#include <boost/test/unit_test.hpp>

#include <string>

#include "messages/design_convert.hpp"

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;

namespace {

/// Every value of the design document's enum is one of ours, under its number and name.
void expect_within_enum(const EnumDescriptor& ours, const EnumDescriptor& design) {
  for (int i = 0; i < design.value_count(); ++i) {
    const auto* match = ours.FindValueByNumber(design.value(i)->number());
    BOOST_TEST((match != nullptr && match->name() == design.value(i)->name()),
               ours.full_name() << " lacks " << design.value(i)->name());
  }
}

/// Every field of `design` is in `ours` under its number, of its type and cardinality, and
/// nested messages and enums match the same way. Ours may say more (a node's usage alone, op
/// USAGE), which an agent written from the design document never sends.
void expect_within_wire(const Descriptor& ours, const Descriptor& design) {
  BOOST_TEST(design.field_count() <= ours.field_count(), design.full_name());
  for (int i = 0; i < design.field_count(); ++i) {
    const FieldDescriptor& field = *design.field(i);
    const FieldDescriptor* match = ours.FindFieldByNumber(field.number());
    BOOST_TEST_REQUIRE(match != nullptr, ours.full_name() << " lacks field " << field.number());
    BOOST_TEST(match->type() == field.type(), field.full_name());
    BOOST_TEST(match->is_repeated() == field.is_repeated(), field.full_name());
    BOOST_TEST(match->has_presence() == field.has_presence(), field.full_name());
    if (field.type() == FieldDescriptor::TYPE_MESSAGE) {
      expect_within_wire(*match->message_type(), *field.message_type());
    } else if (field.type() == FieldDescriptor::TYPE_ENUM) {
      expect_within_enum(*match->enum_type(), *field.enum_type());
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(design_schema)

BOOST_AUTO_TEST_CASE(seed_nodes_and_resources_have_our_wire_form) {
  expect_within_wire(*unisched::v1::NodeDelta::descriptor(), *::NodeDelta::descriptor());
  expect_within_wire(*unisched::v1::ResourceDelta::descriptor(), *::ResourceDelta::descriptor());
}

BOOST_AUTO_TEST_CASE(the_seeds_fields_keep_their_numbers_and_types) {
  const Descriptor& update = *::IncrementalUpdate::descriptor();
  const auto field = [&](int number) { return update.FindFieldByNumber(number); };
  BOOST_TEST_REQUIRE(update.field_count() == 5);
  BOOST_TEST((field(1)->name() == "clusterID" && field(1)->type() == FieldDescriptor::TYPE_STRING));
  BOOST_TEST((field(2)->name() == "version" && field(2)->type() == FieldDescriptor::TYPE_INT64));
  BOOST_TEST((field(3)->name() == "nodeDeltas" && field(3)->is_repeated()));
  BOOST_TEST(field(4)->name() == "resourceDelta");
  BOOST_TEST(
      (field(5)->name() == "healthStatus" && field(5)->type() == FieldDescriptor::TYPE_STRING));
  BOOST_TEST(update.file()->package().empty());  // the methods are /ClusterMetadataService/...
}

BOOST_AUTO_TEST_CASE(an_update_is_read_as_ours_and_malformed_ones_are_named) {
  ::IncrementalUpdate update;
  update.set_clusterid("c");
  update.set_version(1);
  ::NodeDelta& delta = *update.add_nodedeltas();
  delta.set_op(::NodeDelta::ADD);
  delta.mutable_node()->set_name("n1");
  delta.mutable_node()->set_allocatablecpumilli(8000);
  ::Device& device = *delta.mutable_node()->add_accelerators();
  device.set_resource("nvidia.com/gpu");
  device.set_interconnect(::Device::NVLINK);
  device.set_linkgeneration(4);
  const auto start = unisched::messages::design_start(update, 7);
  BOOST_TEST_REQUIRE(start.has_value());
  BOOST_TEST(start->epoch() == 7u);
  BOOST_TEST(start->nodes(0).allocatable_cpu_milli() == 8000);
  BOOST_TEST(start->nodes(0).accelerators(0).interconnect() == unisched::v1::NVLINK);
  BOOST_TEST(start->nodes(0).accelerators(0).link_generation() == 4);
  update.set_version(2);
  const auto next = unisched::messages::design_update(update, 7);
  BOOST_TEST_REQUIRE(next.has_value());
  BOOST_TEST((next->base_version() == 1u && next->version() == 2u));
  BOOST_TEST(next->node_deltas(0).op() == unisched::v1::NodeDelta::ADD);
  // healthStatus is free text in the design document's IDL: known states match without case, and
  // other text is UNKNOWN with a warning, never a refused update (issue 66, item 7).
  for (const auto& [text, state] : std::vector<std::pair<std::string, unisched::v1::HealthState>>{
           {"Healthy", unisched::v1::HEALTHY},
           {"degraded", unisched::v1::DEGRADED},
           {"GREAT", unisched::v1::HEALTH_UNKNOWN},
           {"", unisched::v1::HEALTH_UNKNOWN}}) {
    update.set_healthstatus(text);
    const auto read = unisched::messages::design_update(update, 7);
    BOOST_TEST_REQUIRE(read.has_value(), text);
    BOOST_TEST(read->health_status().state() == state, text);
    BOOST_TEST(unisched::messages::unknown_design_health(text).has_value() == (text == "GREAT"));
  }
  BOOST_TEST(unisched::messages::unknown_design_health("GREAT").value().find("taken as UNKNOWN") !=
             std::string::npos);
  update.set_healthstatus("HEALTHY");
  delta.set_op(::NodeDelta::REMOVE);
  BOOST_TEST(unisched::messages::design_start(update, 8).error().find("nodeDeltas[0].op") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
