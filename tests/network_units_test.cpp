#include <boost/test/unit_test.hpp>

#include "model/bandwidth.hpp"
#include "model/latency.hpp"

using unisched::model::Bandwidth;
using unisched::model::LatencyBound;

BOOST_AUTO_TEST_SUITE(network_units)

BOOST_AUTO_TEST_CASE(bandwidth_from_the_seed) {
  BOOST_TEST(Bandwidth::parse("40Gbps")->bits_per_second() == 40'000'000'000ULL);
  BOOST_TEST(Bandwidth::parse("100Mbps")->bits_per_second() == 100'000'000ULL);
  BOOST_TEST(Bandwidth::parse("1.6Tbps")->bits_per_second() == 1'600'000'000'000ULL);
  BOOST_TEST(Bandwidth::parse("1.6Tbps")->to_string() == "1600Gbps");
  BOOST_TEST(Bandwidth::parse("25kbps")->to_string() == "25Kbps");
  BOOST_TEST(Bandwidth::parse("0bps")->to_string() == "0bps");
}

BOOST_AUTO_TEST_CASE(bandwidth_rejects_bad_forms) {
  const char* bad[] = {"",       "Gbps",      "40",     "40 Gbps", "40GB/s",         "1.Gbps",
                       ".5Gbps", "1.2.3Gbps", "1.5bps", "-1Gbps",  "99999999999Pbps"};
  for (const char* text : bad) {
    BOOST_TEST(!Bandwidth::parse(text).has_value(), "'" << text << "' must be rejected");
  }
  BOOST_TEST(
      Bandwidth::parse("40GB/s").error() ==
      "unknown bandwidth unit \"GB/s\": expected one of Pbps, Tbps, Gbps, Mbps, Kbps, kbps, bps");
  BOOST_TEST(Bandwidth::parse("1.5bps").error() ==
             "bandwidth \"1.5bps\" is not a whole number of bps");
}

BOOST_AUTO_TEST_CASE(latency_forms_from_the_seed) {
  const auto below = *LatencyBound::parse("<1ms");
  BOOST_TEST((below.relation() == LatencyBound::Relation::Below));
  BOOST_TEST(below.max_nanoseconds() == 999'999);
  BOOST_TEST(LatencyBound::parse("<=500us")->max_nanoseconds() == 500'000);
  BOOST_TEST(LatencyBound::parse("2ms")->max_nanoseconds() == 2'000'000);
  BOOST_TEST(LatencyBound::parse("<= 1.5ms")->to_string() == "<=1500us");
  BOOST_TEST(LatencyBound::parse("<1000us")->to_string() == "<1ms");
  BOOST_TEST(LatencyBound::parse("250\u00b5s")->to_string() == "250us");
}

BOOST_AUTO_TEST_CASE(latency_satisfaction_is_exact_at_the_boundary) {
  const auto cluster_below_1ms = *LatencyBound::parse("<1ms");
  const auto cluster_at_most_1ms = *LatencyBound::parse("<=1ms");
  BOOST_TEST(cluster_below_1ms.satisfies(*LatencyBound::parse("<1ms")));
  BOOST_TEST(cluster_below_1ms.satisfies(*LatencyBound::parse("1ms")));
  BOOST_TEST(cluster_at_most_1ms.satisfies(*LatencyBound::parse("<=1ms")));
  BOOST_TEST(!cluster_at_most_1ms.satisfies(*LatencyBound::parse("<1ms")));
  BOOST_TEST(!LatencyBound::parse("2ms")->satisfies(*LatencyBound::parse("<=500us")));
}

BOOST_AUTO_TEST_CASE(latency_rejects_bad_forms) {
  const char* bad[] = {"", "<", "<=", "1", "1min", "1.5ns", "<0ms", ">1ms", "-1ms", "1 ms"};
  for (const char* text : bad) {
    BOOST_TEST(!LatencyBound::parse(text).has_value(), "'" << text << "' must be rejected");
  }
}

BOOST_AUTO_TEST_SUITE_END()
