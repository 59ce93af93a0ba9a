// The protocol's error codes: made, read back by code (never by text), rendered, and mapped to
// exit codes.
#include "messages/errors.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/actor_harness.hpp"

using unisched::messages::cli_exit_code;
using unisched::messages::Error;
using unisched::messages::error_code;
using unisched::messages::error_detail;
using unisched::messages::make_error;

BOOST_AUTO_TEST_SUITE(errors)

BOOST_AUTO_TEST_CASE(a_code_and_its_detail_come_back_from_the_error) {
  const caf::error error =
      make_error(Error::AlreadyRegistered, "cluster \"a\" is already registered");
  BOOST_TEST((error_code(error) == Error::AlreadyRegistered));
  BOOST_TEST(error_detail(error) == "cluster \"a\" is already registered");
  // CAF's own errors are not ours.
  BOOST_TEST(!error_code(caf::make_error(caf::sec::request_timeout)).has_value());
  BOOST_TEST(!error_code(caf::error{}).has_value());
}

BOOST_AUTO_TEST_CASE(each_code_has_its_exit_code) {
  const std::pair<Error, int> table[] = {{Error::InvalidArgument, 1},
                                         {Error::NotFound, 3},
                                         {Error::Unauthenticated, 4},
                                         {Error::AlreadyRegistered, 5},
                                         {Error::Unavailable, 6}};
  for (const auto& [code, exit_code] : table) {
    BOOST_TEST(cli_exit_code(make_error(code, "x")) == exit_code, to_string(code));
  }
  BOOST_TEST(cli_exit_code(caf::make_error(caf::sec::request_timeout)) == 1);
}

BOOST_AUTO_TEST_CASE(an_actor_system_renders_code_and_detail) {
  unisched::testing::ActorHarness harness;
  BOOST_TEST(harness.system->render(make_error(Error::NotFound, "no cluster \"x\"")) ==
             "not_found: no cluster \"x\"");
}

BOOST_AUTO_TEST_SUITE_END()
