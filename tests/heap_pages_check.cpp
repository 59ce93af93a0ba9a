// runtime::heap_pages_from_environment in a process of its own that allocates through tcmalloc,
// as the executables do. `heap_pages_check huge|small|refused`: with UNISCHED_HEAP_PAGES=huge a
// range the heap takes afterwards carries the kernel's huge-page advice ("hg" in its mapping's
// VmFlags); unset or "small", it does not; any other value is refused by name.
// Exits 0 when it is as expected, 1 when not, 77 (skipped) without tcmalloc or huge pages.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/heap_pages.hpp"

namespace {

constexpr int kSkipped = 77;

bool kernel_has_huge_pages() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(mode, line) && line.find("[never]") == std::string::npos;
}

/// The VmFlags of the mapping holding `address`, from /proc/self/smaps; empty if none holds it.
std::string flags_of_mapping_at(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long begin = 0;
    unsigned long end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(std::strlen("VmFlags:")) + " ";
    }
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string expected = argc > 1 ? argv[1] : "";
  const auto choice = unisched::runtime::heap_pages_from_environment();
  if (expected == "refused") {
    std::printf("refused: %s\n", choice.problem.c_str());
    const bool named = choice.problem.find("UNISCHED_HEAP_PAGES: \"") == 0 &&
                       choice.pages == unisched::runtime::HeapPages::Small;
    return named ? 0 : 1;
  }
  if (!choice.problem.empty() || (expected != "huge" && expected != "small")) {
    std::printf("FAILED: expected %s, problem \"%s\"\n", expected.c_str(), choice.problem.c_str());
    return 1;
  }
  if (choice.pages == unisched::runtime::HeapPages::NoHook || !kernel_has_huge_pages()) {
    std::printf("SKIPPED heap_pages_check %s: heap pages %s, transparent huge pages %s\n",
                expected.c_str(), unisched::runtime::describe(choice.pages),
                kernel_has_huge_pages() ? "available" : "off in this kernel");
    return kSkipped;
  }
  // Larger than tcmalloc keeps free after start-up: the heap takes a new range for it.
  const std::vector<char> block(size_t{64} << 20, 1);
  const std::string flags = flags_of_mapping_at(block.data());
  const bool advised = flags.find(" hg ") != std::string::npos;
  std::printf("heap pages %s; the new range's VmFlags:%s\n",
              unisched::runtime::describe(choice.pages), flags.c_str());
  if (flags.empty() || advised != (expected == "huge") ||
      unisched::runtime::describe(choice.pages) != expected) {
    std::printf("FAILED: the range %s huge-page advice\n", advised ? "carries" : "lacks");
    return 1;
  }
  return 0;
}
