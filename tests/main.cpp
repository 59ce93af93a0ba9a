// The single Boost.Test entry point; each unit's tests live in their own *_test.cpp file.
//
// A case skipped for want of something (../shared data, Slurm's daemons) prints
// `SKIPPED <case>: <reason>`, and a run whose every selected case was skipped exits 77, which
// CMake declares as ctest's SKIP_RETURN_CODE: ctest then reports the entry as skipped, not passed,
// and tools/dev.sh lists the reasons that ctest does not show.
#define BOOST_TEST_NO_MAIN
#include <boost/test/tree/observer.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <string>

namespace {

constexpr int kAllSkipped = 77;

class SkipReporter : public boost::unit_test::test_observer {
 public:
  void test_unit_finish(const boost::unit_test::test_unit& unit, unsigned long) override {
    if (unit.p_type == boost::unit_test::TUT_CASE) {
      ++ran_;
    }
  }

  void test_unit_skipped(const boost::unit_test::test_unit& unit,
                         boost::unit_test::const_string reason) override {
    const std::string why(reason.begin(), reason.end());
    if (why == "disabled") {  // not selected by --run_test: nothing the reader must know
      return;
    }
    ++skipped_;
    std::printf("SKIPPED %s: %s\n", unit.full_name().c_str(), why.c_str());
    std::fflush(stdout);
  }

  /// Boost's exit code, or kAllSkipped when the run passed but ran no case at all.
  int exit_code(int boost_code) const {
    if (boost_code != 0 || skipped_ == 0) {
      return boost_code;
    }
    if (ran_ > 0) {
      std::printf("ran %d test cases, skipped %d\n", ran_, skipped_);
      return boost_code;
    }
    return kAllSkipped;
  }

 private:
  int ran_ = 0;
  int skipped_ = 0;
};

SkipReporter& skip_reporter() {
  static SkipReporter reporter;
  return reporter;
}

bool init_unit_test() {
  boost::unit_test::framework::master_test_suite().p_name.value = "unisched";
  return true;
}

// Registered once the run has started: registered from init_unit_test, it made Boost 1.74 give
// up on this binary's runs before the first case with an empty "Test setup error" (a small
// program does not; the cause was not found).
struct SkipReporterInstalled {
  SkipReporterInstalled() { boost::unit_test::framework::register_observer(skip_reporter()); }
};

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(SkipReporterInstalled);

int main(int argc, char* argv[]) {
  const int code = boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
  return skip_reporter().exit_code(code);
}
