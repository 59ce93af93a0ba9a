// QuotaWaitingLine: each queue's line served by priority, then arrival; what a queue waits for
// summed; work that leaves its line (admitted or withdrawn) no longer counted.
#include "cores/quota_waiting_line.hpp"

#include <boost/test/unit_test.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

using unisched::actors::QuotaWaitingLine;
using unisched::actors::WaitingWork;

namespace {

constexpr const char* kGpu = "nvidia.com/gpu";

/// The id of each queue's head, by queue name.
std::vector<std::string> head_ids(const QuotaWaitingLine& line) {
  std::vector<std::string> out;
  for (const WaitingWork* head : line.heads()) {
    out.push_back(head->id);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_waiting_line)

BOOST_AUTO_TEST_CASE(a_line_is_served_by_priority_then_arrival) {
  struct Case {
    std::vector<std::pair<std::string, int64_t>> arrivals;  // (work, priority)
    std::vector<std::string> served;                        // heads, one after the other
  };
  const std::vector<Case> cases = {
      {{{"a", 0}, {"b", 0}, {"c", 0}}, {"a", "b", "c"}},
      {{{"a", 0}, {"b", 5}, {"c", 1}}, {"b", "c", "a"}},
      {{{"a", 5}, {"b", 5}, {"c", -1}}, {"a", "b", "c"}},
  };
  for (const Case& c : cases) {
    QuotaWaitingLine line;
    for (const auto& [work, priority] : c.arrivals) {
      line.add(work, "team", {{kGpu, 1000}}, priority);
    }
    std::vector<std::string> served;
    while (!line.heads().empty()) {
      served.push_back(line.heads().front()->id);
      BOOST_TEST(line.remove(served.back()));
    }
    BOOST_TEST((served == c.served));
    BOOST_TEST(line.queues().empty());
  }
}

BOOST_AUTO_TEST_CASE(each_queue_has_its_own_line_and_pending_demand) {
  QuotaWaitingLine line;
  line.add("a1", "team-a", {{kGpu, 4000}}, 0);
  line.add("b1", "team-b", {{kGpu, 1000}, {"cpu", 500}}, 0);
  line.add("a2", "team-a", {{kGpu, 2000}}, 9);
  BOOST_TEST((head_ids(line) == std::vector<std::string>{"a2", "b1"}));
  BOOST_TEST((line.queues() == std::set<std::string>{"team-a", "team-b"}));
  BOOST_TEST(line.pending("team-a").requests == 2u);
  BOOST_TEST(line.pending("team-a").demand.at(kGpu) == 6000);
  BOOST_TEST(line.pending("team-b").demand.at("cpu") == 500);
  BOOST_TEST(line.pending("team-c").requests == 0u);
  BOOST_TEST(line.pending("team-c").demand.empty());

  BOOST_TEST(line.remove("b1"));
  BOOST_TEST(!line.remove("b1"));
  BOOST_TEST((line.queues() == std::set<std::string>{"team-a"}));
  BOOST_TEST(!line.contains("b1"));
  BOOST_TEST(line.contains("a1"));
}

BOOST_AUTO_TEST_CASE(work_added_again_goes_behind_its_equals_and_keeps_its_refusal_apart) {
  QuotaWaitingLine line;
  line.add("a", "team", {{kGpu, 1000}}, 0);
  line.add("b", "team", {{kGpu, 1000}}, 0);
  line.mark_refused("a", 7);
  BOOST_TEST(line.at("a").refused_at == 7u);
  BOOST_TEST(line.at("b").refused_at == 0u);
  line.add("a", "team", {{kGpu, 3000}}, 0);  // it left and came back: a new arrival
  BOOST_TEST((head_ids(line) == std::vector<std::string>{"b"}));
  BOOST_TEST(line.at("a").refused_at == 0u);
  BOOST_TEST(line.pending("team").requests == 2u);
  BOOST_TEST(line.pending("team").demand.at(kGpu) == 4000);
}

BOOST_AUTO_TEST_SUITE_END()
