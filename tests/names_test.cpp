#include "model/names.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using namespace unisched::model;

BOOST_AUTO_TEST_SUITE(names)

BOOST_AUTO_TEST_CASE(any_text_made_of_dns1123_label_characters) {
  BOOST_TEST(dns1123_label_from("arn:aws:eks:us-west-2:1234:cluster/Prod") ==
             "arn-aws-eks-us-west-2-1234-cluster-prod");
  BOOST_TEST(dns1123_label_from("--train/3--") == "train-3");
  BOOST_TEST(dns1123_label_from(std::string(70, 'a')).size() == 63u);
  BOOST_TEST(dns1123_label_from("abc-def", 4) == "abc");  // no '-' left at the cut
  BOOST_TEST(dns1123_label_from("::").empty());
  BOOST_TEST(check_dns1123_label(dns1123_label_from("Any Text_at/all!")).empty());
}

BOOST_AUTO_TEST_CASE(dns1123_labels) {
  for (const std::string& good :
       std::vector<std::string>{"a", "a100-uswest", "0cluster", std::string(63, 'x')}) {
    BOOST_TEST(check_dns1123_label(good).empty(), good);
  }
  for (const std::string& bad :
       std::vector<std::string>{"", "-a", "a-", "A100", "a_b", "a.b", std::string(64, 'x')}) {
    BOOST_TEST(!check_dns1123_label(bad).empty(), "'" << bad << "' must be refused");
  }
}

BOOST_AUTO_TEST_CASE(dns1123_subdomains) {
  for (const char* good : {"a", "example.com", "gpu-cluster-a", "a.b-c.d"}) {
    BOOST_TEST(check_dns1123_subdomain(good).empty(), good);
  }
  for (const char* bad : {"", ".a", "a.", "a..b", "Example.com", "a_b"}) {
    BOOST_TEST(!check_dns1123_subdomain(bad).empty(), "'" << bad << "' must be refused");
  }
  BOOST_TEST(!check_dns1123_subdomain(std::string(254, 'a')).empty());
}

BOOST_AUTO_TEST_CASE(label_keys_and_values) {
  for (const char* good : {"app", "team.example.com/owner", "My_Name.v2", "nvidia.com/gpu"}) {
    BOOST_TEST(check_label_key(good).empty(), good);
  }
  for (const char* bad : {"", "/name", "Example.com/x", "a/b/c", "-x", "x/"}) {
    BOOST_TEST(!check_label_key(bad).empty(), "'" << bad << "' must be refused");
  }
  for (const char* good : {"", "us-west", "NVIDIA-A100", "v1.2_3"}) {
    BOOST_TEST(check_label_value(good).empty(), good);
  }
  for (const std::string& bad :
       std::vector<std::string>{"-x", "x-", "a b", "a/b", std::string(64, 'v')}) {
    BOOST_TEST(!check_label_value(bad).empty(), "'" << bad << "' must be refused");
  }
}

BOOST_AUTO_TEST_SUITE_END()
