// The metrics/status HTTP port against clients that hold it or blow it up (issue 66, item 1):
// it needs no credential, so every request is bounded (request line and headers: 431; a body:
// 413; too slow: 408), connections are capped, and slow clients never hold the answers to
// others.
#include "runtime/status_server.hpp"

#include <boost/test/unit_test.hpp>
#include <thread>
#include <vector>

#include "tests/hub_process.hpp"
#include "tests/raw_socket.hpp"

using namespace unisched::runtime;
using unisched::testing::RawConnection;
using namespace std::chrono_literals;

namespace {

/// A server whose pages say which was asked for.
std::unique_ptr<StatusServer> start_server(StatusServerLimits limits = {}) {
  StatusPages pages;
  pages.metrics = [] { return std::string("unisched_up 1\n"); };
  std::string error;
  auto server = StatusServer::start("127.0.0.1", 0, std::move(pages), error, limits);
  BOOST_TEST_REQUIRE(static_cast<bool>(server), error);
  return server;
}

/// The status line of the answer to `request` sent whole on a new connection.
std::string status_line(uint16_t port, const std::string& request) {
  RawConnection connection(port);
  BOOST_TEST_REQUIRE(connection.connected());
  connection.send(request);
  const std::string answer = connection.receive(unisched::testing::scaled(5000ms), 12);
  return answer.substr(0, 12);  // "HTTP/1.1 200"
}

const std::string kScrape = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(status_server)

BOOST_AUTO_TEST_CASE(requests_that_break_a_limit_are_refused_as_http_says) {
  const auto server = start_server();
  const uint16_t port = server->port();
  BOOST_TEST(status_line(port, kScrape) == "HTTP/1.1 200");
  BOOST_TEST(status_line(port, "GET /" + std::string(64 * 1024, 'a') + " HTTP/1.1\r\n\r\n") ==
             "HTTP/1.1 431");
  std::string headers = "GET /metrics HTTP/1.1\r\n";
  for (int i = 0; i < 150; ++i) {
    headers += "X-" + std::to_string(i) + ": 1\r\n";
  }
  BOOST_TEST(status_line(port, headers + "\r\n") == "HTTP/1.1 431");
  BOOST_TEST(status_line(port, "GET /metrics HTTP/1.1\r\nX-Big: " + std::string(20000, 'b') +
                                   "\r\n\r\n") == "HTTP/1.1 431");
  BOOST_TEST(status_line(port, "POST /metrics HTTP/1.1\r\nContent-Length: 300000000\r\n\r\n") ==
             "HTTP/1.1 413");
  BOOST_TEST(status_line(port,
                         "GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "5\r\nhello\r\n0\r\n\r\n") == "HTTP/1.1 413");
  BOOST_TEST(status_line(port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n") ==
             "HTTP/1.1 405");
  BOOST_TEST(status_line(port, "GET /nothing HTTP/1.1\r\n\r\n") == "HTTP/1.1 404");
  BOOST_TEST(status_line(port, "GET / HTTP/1.1\r\n\r\n") == "HTTP/1.1 404");  // no status page
  BOOST_TEST(status_line(port, "\x16\x03\x01 not http\r\n\r\n") == "HTTP/1.1 400");
  BOOST_TEST(status_line(port, kScrape) == "HTTP/1.1 200");  // and it still answers
}

BOOST_AUTO_TEST_CASE(a_request_that_does_not_arrive_in_time_gets_408) {
  StatusServerLimits limits;
  limits.request_deadline = 300ms;
  const auto server = start_server(limits);
  RawConnection slow(server->port());
  slow.send("GET /metrics HTTP/1.1\r\n");  // and never the rest
  const std::string answer = slow.receive(unisched::testing::scaled(5000ms));
  BOOST_TEST(answer.rfind("HTTP/1.1 408", 0) == 0u, answer);
}

BOOST_AUTO_TEST_CASE(slow_clients_never_hold_the_answers_to_others) {
  // 40 clients each sending a byte now and then held every thread of the old server's pool:
  // /metrics went unanswered for 30 s.
  const auto server = start_server();
  std::vector<RawConnection> slow;
  for (int i = 0; i < 40; ++i) {
    slow.emplace_back(server->port());
    slow.back().send("GET /metrics HTTP/1.1\r\nX-Slow: ");
  }
  std::this_thread::sleep_for(200ms);
  for (RawConnection& client : slow) {
    client.send("a");
  }
  RawConnection scraper(server->port());
  scraper.send(kScrape);
  const std::string answer = scraper.receive(3000ms);
  BOOST_TEST(answer.rfind("HTTP/1.1 200", 0) == 0u, answer);
  BOOST_TEST(answer.find("unisched_up 1") != std::string::npos, answer);
}

BOOST_AUTO_TEST_CASE(connections_beyond_the_cap_are_closed_and_the_cap_frees_up) {
  StatusServerLimits limits;
  limits.max_connections = 4;
  const auto server = start_server(limits);
  std::vector<RawConnection> idle;
  for (int i = 0; i < 4; ++i) {
    idle.emplace_back(server->port());
    idle.back().send("G");
  }
  std::this_thread::sleep_for(200ms);
  RawConnection over(server->port());
  over.send(kScrape);
  BOOST_TEST(over.receive(unisched::testing::scaled(2000ms)).empty());  // closed unanswered
  idle.clear();
  unisched::testing::ActorHarness::wait_until(
      [&] { return status_line(server->port(), kScrape) == "HTTP/1.1 200"; },
      "a connection once the idle ones closed");
}

BOOST_AUTO_TEST_CASE(a_48_mib_request_line_costs_the_hub_little_and_is_refused) {
  unisched::testing::Hub hub(0, {"--metrics", "127.0.0.1:0"});
  const std::string marker = "metrics on 127.0.0.1:";
  unisched::testing::ActorHarness::wait_until(
      [&] { return hub.process->output().find(marker) != std::string::npos; }, "metrics port");
  const std::string log = hub.process->output();
  const auto port = static_cast<uint16_t>(std::stoi(log.substr(log.find(marker) + marker.size())));
  const uint64_t before = unisched::testing::resident_bytes(hub.process->pid());
  std::vector<RawConnection> attackers;
  for (int i = 0; i < 6; ++i) {
    attackers.emplace_back(port);
    attackers.back().send("GET /" + std::string(48 << 20, 'a'));  // refused partway: that's fine
  }
  const uint64_t after = unisched::testing::resident_bytes(hub.process->pid());
  BOOST_TEST(after < before + (100u << 20), "the hub grew from " << before << " to " << after);
  BOOST_TEST(status_line(port, kScrape) == "HTTP/1.1 200");
}

BOOST_AUTO_TEST_SUITE_END()
