// The readers of the Alibaba GPU trace's CSV node and pod lists (adapters/gpu_trace). The first
// byte picks the list; whatever the text, every row is either kept within the ranges replay
// relies on, or reported as a problem naming the file and line.
#include "adapters/gpu_trace.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace adapters = unisched::adapters;
using unisched::fuzz::check;

namespace {

void check_problems(const std::vector<std::string>& problems) {
  for (const std::string& problem : problems) {
    check(problem.rfind("fuzz.csv:", 0) == 0, "a problem names the file and line", problem);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  const std::string text(unisched::fuzz::as_text(data + 1, size - 1));
  if (data[0] & 1) {
    const auto read = adapters::parse_trace_pods(text, "fuzz.csv");
    check_problems(read.problems);
    for (const auto& pod : read.rows) {
      check(pod.cpu_milli >= 0 && pod.memory_mib >= 0 && pod.gpus >= 0,
            "a pod's amounts are not negative", pod.name);
      check(pod.gpu_milli >= 0 && pod.gpu_milli <= 1000, "a pod's GPU share is 0..1000", pod.name);
    }
  } else {
    const auto read = adapters::parse_trace_nodes(text, "fuzz.csv");
    check_problems(read.problems);
    for (const auto& node : read.rows) {
      check(node.cpu_milli >= 0 && node.memory_mib >= 0 && node.gpus >= 0,
            "a node's amounts are not negative", node.name);
      check(node.gpus == 0 || !node.model.empty(), "a node with GPUs names their model", node.name);
    }
  }
  return 0;
}
