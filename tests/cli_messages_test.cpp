// What a user reads from the CLI, checked once each and exactly: each case's exit code, standard
// output and standard error against tests/data/cli_messages.golden. Tests elsewhere check what
// the CLI does (exit codes, structured output); rewording a message changes this file alone.
// To accept new wording: UNISCHED_UPDATE_GOLDEN=1 ./build/tests/unisched_tests
// --run_test=cli_messages, then read the diff of the golden file before committing it.
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_files.hpp"

using unisched::testing::read_file;
using unisched::testing::ScratchDirectory;

namespace {

const std::string kSource = UNISCHED_SOURCE_DIR;
const std::string kGolden = kSource + "/tests/data/cli_messages.golden";

/// A command run in the checkout (paths relative to it) or, `outside`, in an empty folder.
struct Case {
  std::string arguments;
  bool outside = false;
};

/// The single-process verbs: manifests, and the flags of run, replay and simulate.
std::vector<Case> local_cases() {
  return {
      {"validate -f tests/data/mixed.yaml"},
      {"validate -f tests/data/many-problems.yaml"},
      {"validate -f tests/data/no-such-profile.yaml"},
      {"run --clusters 0"},
      {"run --duration soon"},
      {"run --push-interval 0ms"},
      {"run --churn -1"},
      {"run --partition t4-useast:1s"},
      {"run --profiles config/profiles --partition nowhere:1s:1s"},
      {"run --report xml"},
      {"run --policy fastest"},
      {"run --commit-check pod"},
      {"run --in-flight 0"},
      {"run --in-flight 4"},
      {"run --schedulers 0"},
      {"run --node-sample -1"},
      {"run --scorers fastest=1"},
      {"run --scorers locality=0"},
      {"run --scorers locality=2,"},
      {"run --profiles tests/data/mixed.yaml"},
      {"run --profiles config/profiles --quotas tests/data/mixed.yaml"},
      {"run --duration 1s", true},
      {"replay --pods p.csv"},
      {"replay --nodes n.csv --pods p.csv --partition byzantine"},
      {"replay --nodes n.csv --pods p.csv --tune lots"},
      {"replay --nodes n.csv --pods p.csv --clusters 0"},
      {"replay --nodes n.csv --pods p.csv --report xml"},
      {"replay --nodes n.csv --pods p.csv --ties coin"},
      {"replay --nodes n.csv --pods p.csv --seeds 51-42"},
      {"replay --nodes n.csv --pods p.csv --seeds 1-20000"},
      {"replay --nodes n.csv --pods p.csv --seeds 4,x"},
      {"replay --nodes n.csv --pods p.csv --policy fgd,tetris"},
      {"replay --nodes n.csv --pods p.csv --seeds 1-2 --at 75"},
      {"replay --nodes n.csv --pods p.csv --policy fgd,bestfit --baseline random"},
      {"replay --nodes n.csv --pods p.csv --seeds 1-2 --jobs 0"},
      {"replay --nodes /nonexistent/n.csv --pods /nonexistent/p.csv"},
      {"simulate --faults bogus"},
      {"simulate --faults ,"},
      {"simulate --runs 0"},
      {"simulate --seed -1"},
      {"simulate --clusters 27"},
      {"simulate --in-flight 0"},
      {"simulate --report xml"},
  };
}

/// The roles and the hub's clients: their flags, a hub nobody listens for, unusable files.
std::vector<Case> networked_cases() {
  return {
      {"serve --listen 127.0.0.1:0 --journal README.md"},
      {"serve --listen 127.0.0.1:0 --journal config"},
      {"serve --listen 127.0.0.1:99999"},
      {"serve --schedulers 0"},
      {"serve --policy fastest"},
      {"serve --node-sample many"},
      {"serve --listen 127.0.0.1:0 --grpc nowhere"},
      {"serve --listen 127.0.0.1:0 --metrics nowhere"},
      {"serve --tls-cert x.pem"},
      {"run --profiles config/profiles --grpc nowhere"},
      // Port 1 on loopback: nothing listens there, so the hub cannot be reached.
      {"agent --hub 127.0.0.1:1 --profile config/profiles/t4-vm-useast.yaml"},
      {"agent --hub nowhere --profile x.yaml"},
      {"agent --hub 127.0.0.1:1 --profile tests/data/mixed.yaml"},
      {"agent --hub 127.0.0.1:1 --profile config/profiles/t4-vm-useast.yaml --push-interval soon"},
      {"agent --hub 127.0.0.1:1 --adapter k8s --profile x.yaml"},
      {"agent --hub 127.0.0.1:1"},
      {"agent --hub 127.0.0.1:1 --adapter slurm --slurm-conf /nonexistent/slurm.conf"},
      {"agent --hub 127.0.0.1:1 --adapter kubernetes --kubeconfig /nonexistent/config"},
      {"agent --hub 127.0.0.1:1 --adapter kubernetes"},
      {"agent --hub 127.0.0.1:1 --profile config/profiles/t4-vm-useast.yaml --metrics nowhere"},
      {"agent --hub 127.0.0.1:1 --transport pigeon --profile config/profiles/t4-vm-useast.yaml"},
      {"shard --listen 127.0.0.1:0"},
      {"shard --hub 127.0.0.1:1 --metrics nowhere"},
      {"shard --hub 127.0.0.1:1 --listen nowhere"},
      {"get clusters --hub 127.0.0.1:1"},
      {"get pods"},
      {"get clusters -w --watch-seconds 0"},
      {"get nodes --from somewhere"},
      {"get requests -o xml"},
      {"get clusters --tls-cert a --tls-key b --tls-ca c"},
      {"describe node x"},
      {"describe cluster x -o yaml"},
      {"submit --hub 127.0.0.1:1"},
      {"submit -f /nonexistent.yaml"},
      {"submit -f x.yaml --wait --timeout soon"},
  };
}

/// Every case, in the golden file's order.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> out = local_cases();
    for (Case& c : networked_cases()) {
      out.push_back(std::move(c));
    }
    return out;
  }();
  return all;
}

/// The case as the golden file holds it: the command, its exit code, what it printed.
std::string transcript(const Case& c) {
  ScratchDirectory scratch;
  const std::string out = scratch.path() + "/out";
  const std::string err = scratch.path() + "/err";
  const std::string folder = c.outside ? scratch.path() : kSource;
  // Logs carry times; the messages a user reads are printed, not logged. A command that should
  // have refused and runs on instead is stopped (exit 124) rather than hang the test.
  const std::string command = "cd " + folder + " && timeout 20 " + std::string(UNISCHED_BINARY) +
                              " " + c.arguments + " --log-level off >" + out + " 2>" + err +
                              " </dev/null";
  const int status = std::system(command.c_str());
  std::string text = "$ unisched " + c.arguments + "\nexit " +
                     std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "\n";
  text += "--- stdout\n" + read_file(out) + "--- stderr\n" + read_file(err) + "\n";
  for (size_t at = text.find(scratch.path()); at != std::string::npos;
       at = text.find(scratch.path(), at)) {
    text.replace(at, scratch.path().size(), "$SCRATCH");
  }
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cli_messages)

BOOST_AUTO_TEST_CASE(every_message_reads_as_the_golden_file_says) {
  std::vector<std::string> transcripts;
  std::string all;
  for (const Case& c : cases()) {
    transcripts.push_back(transcript(c));
    all += transcripts.back();
  }
  if (std::getenv("UNISCHED_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(kGolden, std::ios::binary) << all;
    BOOST_TEST_MESSAGE("rewrote " << kGolden);
  }
  const std::string golden = read_file(kGolden);
  BOOST_TEST_REQUIRE(!golden.empty(), kGolden << " is missing or empty");
  // Case by case, so a difference names its command.
  size_t at = 0;
  for (size_t i = 0; i < transcripts.size(); ++i) {
    const std::string found = golden.substr(at, transcripts[i].size());
    BOOST_TEST(found == transcripts[i],
               "the golden file differs at `unisched " << cases()[i].arguments << "`");
    if (found != transcripts[i]) {
      return;  // what follows is shifted: one difference at a time
    }
    at += found.size();
  }
  BOOST_TEST(at == golden.size(), "the golden file holds cases this test no longer runs");
}

BOOST_AUTO_TEST_SUITE_END()
