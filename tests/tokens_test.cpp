#include "runtime/tokens.hpp"

#include <boost/test/unit_test.hpp>

using unisched::runtime::parse_tokens;
using unisched::runtime::token_matches;
using unisched::runtime::token_refusal;

BOOST_AUTO_TEST_SUITE(tokens)

BOOST_AUTO_TEST_CASE(pairs_comments_and_blank_lines) {
  const auto tokens = parse_tokens(
      "# clusterID token\n\na100-uswest  0123456789abcdef0123\nt4-useast\tfedcba9876543210\n",
      "tokens.txt", "clusterID");
  BOOST_TEST(tokens.problems.empty());
  BOOST_TEST(tokens.by_id.size() == 2u);
  BOOST_TEST(tokens.by_id.at("t4-useast") == "fedcba9876543210");
}

BOOST_AUTO_TEST_CASE(bad_lines_are_named) {
  const auto tokens = parse_tokens(
      "lonely\nBad_ID 0123456789abcdef\nshort abc\ndup 0123456789abcdef\ndup 0123456789abcdef\n"
      "three fields 0123456789abcdef\n",
      "t.txt", "shardID");
  BOOST_TEST_REQUIRE(tokens.problems.size() == 5u);
  BOOST_TEST(tokens.problems[0] == "t.txt:1: expected \"shardID token\"");
  BOOST_TEST(tokens.problems[1].find("t.txt:2: shardID \"Bad_ID\"") == 0u);
  BOOST_TEST(tokens.problems[2] == "t.txt:3: the token of short is shorter than 16 characters");
  BOOST_TEST(tokens.problems[3] == "t.txt:5: shardID \"dup\" is given twice");
  BOOST_TEST(tokens.problems[4] == "t.txt:6: expected \"shardID token\"");
}

BOOST_AUTO_TEST_CASE(a_token_matches_only_itself) {
  BOOST_TEST(token_matches("0123456789abcdef", "0123456789abcdef"));
  BOOST_TEST(!token_matches("0123456789abcdef", "0123456789abcdeF"));
  BOOST_TEST(!token_matches("0123456789abcdef", "0123456789abcde"));
  BOOST_TEST(!token_matches("0123456789abcdef", ""));
}

BOOST_AUTO_TEST_CASE(refusals_say_which_rule) {
  const std::map<std::string, std::string> tokens = {{"shard-a", "0123456789abcdef"}};
  BOOST_TEST(token_refusal(tokens, "shard", "shard-a", "0123456789abcdef").empty());
  BOOST_TEST(token_refusal(tokens, "shard", "rogue", "0123456789abcdef") ==
             "no token is configured for shard \"rogue\"");
  BOOST_TEST(token_refusal(tokens, "shard", "shard-a", "") ==
             "shard \"shard-a\" presented no token");
  BOOST_TEST(token_refusal(tokens, "shard", "shard-a", "fedcba9876543210") ==
             "wrong token for shard \"shard-a\"");
}

BOOST_AUTO_TEST_SUITE_END()
