#include "runtime/cluster_tokens.hpp"

#include <boost/test/unit_test.hpp>

using unisched::runtime::parse_cluster_tokens;

BOOST_AUTO_TEST_SUITE(cluster_tokens)

BOOST_AUTO_TEST_CASE(pairs_comments_and_blank_lines) {
  const auto tokens = parse_cluster_tokens(
      "# clusterID token\n\na100-uswest  0123456789abcdef0123\nt4-useast\tfedcba9876543210\n",
      "tokens.txt");
  BOOST_TEST(tokens.problems.empty());
  BOOST_TEST(tokens.by_cluster.size() == 2u);
  BOOST_TEST(tokens.by_cluster.at("t4-useast") == "fedcba9876543210");
}

BOOST_AUTO_TEST_CASE(bad_lines_are_named) {
  const auto tokens = parse_cluster_tokens(
      "lonely\nBad_ID 0123456789abcdef\nshort abc\ndup 0123456789abcdef\ndup 0123456789abcdef\n"
      "three fields 0123456789abcdef\n",
      "t.txt");
  BOOST_TEST_REQUIRE(tokens.problems.size() == 5u);
  BOOST_TEST(tokens.problems[0] == "t.txt:1: expected \"clusterID token\"");
  BOOST_TEST(tokens.problems[1].find("t.txt:2: clusterID \"Bad_ID\"") == 0u);
  BOOST_TEST(tokens.problems[2] == "t.txt:3: the token of short is shorter than 16 characters");
  BOOST_TEST(tokens.problems[3] == "t.txt:5: clusterID \"dup\" is given twice");
  BOOST_TEST(tokens.problems[4] == "t.txt:6: expected \"clusterID token\"");
}

BOOST_AUTO_TEST_SUITE_END()
