// SchedulerQueue: the work a scheduler decides next, by priority and then arrival.
#include "cores/scheduler_work.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using unisched::actors::SchedulerQueue;
using unisched::actors::SchedulerWork;

namespace {

std::unique_ptr<SchedulerWork> work(const std::string& id, int32_t priority) {
  auto made = std::make_unique<SchedulerWork>();
  made->id = id;
  made->spec.priority = priority;
  return made;
}

std::vector<std::string> order(const SchedulerQueue& queue) {
  std::vector<std::string> ids;
  queue.visit([&](const SchedulerWork& waiting) { ids.push_back(waiting.id); });
  return ids;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scheduler_queue)

BOOST_AUTO_TEST_CASE(higher_priority_first_then_the_order_of_arrival) {
  struct Case {
    const char* what;
    std::vector<std::pair<std::string, int32_t>> arrivals;
    std::vector<std::string> decided;
  };
  const Case cases[] = {
      {"one priority: first come, first decided", {{"a", 0}, {"b", 0}, {"c", 0}}, {"a", "b", "c"}},
      {"a later, higher priority goes first", {{"a", 0}, {"b", 10}, {"c", 0}}, {"b", "a", "c"}},
      {"negative priorities last", {{"a", -5}, {"b", 0}, {"c", -5}}, {"b", "a", "c"}},
  };
  for (const Case& c : cases) {
    SchedulerQueue queue(10);
    for (const auto& [id, priority] : c.arrivals) {
      queue.admit(work(id, priority));
    }
    BOOST_TEST(order(queue) == c.decided, c.what);
    std::vector<std::string> taken;
    while (!queue.empty()) {
      BOOST_TEST_REQUIRE(queue.head() != nullptr);
      taken.push_back(queue.take_head()->id);
    }
    BOOST_TEST(taken == c.decided, c.what);
    BOOST_TEST(queue.head() == nullptr);
    BOOST_TEST(!queue.take_head());
  }
}

BOOST_AUTO_TEST_CASE(work_put_back_keeps_its_place_and_the_queue_is_bounded) {
  SchedulerQueue queue(3);
  queue.admit(work("a", 0));
  queue.admit(work("b", 0));
  auto head = queue.take_head();  // "a" waits for the commits in flight...
  queue.admit(work("c", 0));
  queue.put_back(std::move(head));  // ...and goes back before those that came after it
  BOOST_TEST((order(queue) == std::vector<std::string>{"a", "b", "c"}));
  BOOST_TEST(queue.full());
  BOOST_TEST(queue.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_works_placements_take_the_smallest_free_number_else_a_new_one) {
  SchedulerWork work;
  BOOST_TEST(work.take_replica_number() == 0u);
  BOOST_TEST(work.take_replica_number() == 1u);
  BOOST_TEST(work.take_replica_number() == 2u);
  work.free_replicas = {2, 0};  // a refused commit named these: they were never reserved
  BOOST_TEST(work.take_replica_number() == 0u);
  BOOST_TEST(work.take_replica_number() == 2u);
  BOOST_TEST(work.take_replica_number() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
