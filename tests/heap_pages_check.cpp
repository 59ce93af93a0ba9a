// runtime::ask_for_huge_heap_pages in a process of its own that allocates through tcmalloc, as
// the executables do: a range the heap takes afterwards carries the kernel's huge-page advice
// ("hg" in its mapping's VmFlags), or does not when UNISCHED_HEAP_PAGES=small asks so.
// Exits 0 when it is as asked, 1 when not, 77 (skipped) without tcmalloc or huge pages.
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

int main() {
  const unisched::runtime::HeapPages pages = unisched::runtime::ask_for_huge_heap_pages();
  if (pages == unisched::runtime::HeapPages::NoHook || !kernel_has_huge_pages()) {
    std::printf("skipped: heap pages %s, transparent huge pages %s\n",
                unisched::runtime::describe(pages),
                kernel_has_huge_pages() ? "available" : "off in this kernel");
    return kSkipped;
  }
  // Larger than tcmalloc keeps free after start-up: the heap takes a new range for it.
  const std::vector<char> block(size_t{64} << 20, 1);
  const std::string flags = flags_of_mapping_at(block.data());
  const bool advised = flags.find(" hg ") != std::string::npos;
  const bool asked = pages == unisched::runtime::HeapPages::Huge;
  std::printf("heap pages %s; the new range's VmFlags:%s\n", unisched::runtime::describe(pages),
              flags.c_str());
  if (flags.empty() || advised != asked) {
    std::printf("FAILED: the range %s huge-page advice\n", advised ? "carries" : "lacks");
    return 1;
  }
  return 0;
}
