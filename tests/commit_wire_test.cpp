// actors/commit_wire: a commit crosses from a scheduler to a ClusterActor and is read back as it
// was sent; a release names its cluster and placements.
#include "actors/commit_wire.hpp"

#include <boost/test/unit_test.hpp>

namespace actors = unisched::actors;
namespace model = unisched::model;

BOOST_AUTO_TEST_SUITE(commit_wire)

BOOST_AUTO_TEST_CASE(a_commit_reads_back_as_it_was_sent_in_either_mode) {
  for (const auto mode : {actors::CommitMode::ClusterRevision, actors::CommitMode::NodeRevisions}) {
    actors::ClusterCommit sent;
    sent.cluster_id = "a100-uswest";
    sent.mode = mode;
    sent.commit.request_id = "train";
    sent.commit.revision = 41;
    sent.commit.node_revisions = {{"n1", 40}, {"n2", 39}};
    sent.commit.reservations = {
        model::Reservation{"train/0",
                           "n1",
                           2000,
                           int64_t{1} << 30,
                           {0, 1},
                           {8080},
                           {},
                           R"({"spec":{"containers":[{"name":"t"}]}})"},
        model::Reservation{"train/1", "n2", 2000, int64_t{1} << 30, {3}, {}, {500}, {}}};
    const actors::ClusterCommit read = actors::commit_of(actors::to_wire(sent));
    BOOST_TEST(read.cluster_id == sent.cluster_id);
    BOOST_TEST((read.mode == mode));
    BOOST_TEST(read.commit.request_id == "train");
    BOOST_TEST(read.commit.revision == 41u);
    BOOST_TEST((read.commit.node_revisions == sent.commit.node_revisions));
    BOOST_TEST_REQUIRE(read.commit.reservations.size() == 2u);
    for (size_t i = 0; i < 2; ++i) {
      const model::Reservation& r = read.commit.reservations[i];
      const model::Reservation& s = sent.commit.reservations[i];
      BOOST_TEST(r.id == s.id);
      BOOST_TEST(r.node == s.node);
      BOOST_TEST(r.cpu_milli == s.cpu_milli);
      BOOST_TEST(r.memory_bytes == s.memory_bytes);
      BOOST_TEST(r.devices == s.devices, boost::test_tools::per_element());
      BOOST_TEST(r.host_ports == s.host_ports, boost::test_tools::per_element());
      BOOST_TEST(r.device_milli == s.device_milli, boost::test_tools::per_element());
      BOOST_TEST(r.pod_template == s.pod_template);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_release_names_its_cluster_and_placements) {
  const auto order = actors::to_wire(actors::ClusterRelease{"t4-useast", {"web/0", "web/2"}});
  BOOST_TEST(order.cluster_id() == "t4-useast");
  BOOST_TEST_REQUIRE(order.placement_ids_size() == 2);
  BOOST_TEST(order.placement_ids(1) == "web/2");
  BOOST_TEST(order.request_ids_size() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
