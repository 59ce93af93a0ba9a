#include "tools/bench/heap.hpp"

#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>

#include "runtime/heap_pages.hpp"

#ifdef UNISCHED_TCMALLOC
#include <gperftools/malloc_extension.h>
#include <gperftools/tcmalloc.h>
#else
#include <malloc.h>
#endif

namespace unisched::bench {
namespace {

runtime::HeapPages heap_pages = runtime::HeapPages::Small;  // until main chooses

}  // namespace

std::string choose_heap_pages() {
  auto choice = runtime::heap_pages_from_environment();
  heap_pages = choice.pages;
  return std::move(choice.problem);
}

std::string heap_pages_name() {
  return runtime::describe(heap_pages);
}

std::string allocator_name() {
#ifdef UNISCHED_TCMALLOC
  return tc_version(nullptr, nullptr, nullptr);
#else
  return "glibc malloc";
#endif
}

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0;
  int64_t resident_pages = 0;
  statm >> size_pages >> resident_pages;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

int64_t heap_bytes_in_use() {
#ifdef UNISCHED_TCMALLOC
  size_t allocated = 0;
  MallocExtension::instance()->GetNumericProperty("generic.current_allocated_bytes", &allocated);
  return static_cast<int64_t>(allocated);
#else
  return static_cast<int64_t>(mallinfo2().uordblks);
#endif
}

void release_free_heap() {
#ifdef UNISCHED_TCMALLOC
  MallocExtension::instance()->ReleaseFreeMemory();
#else
  malloc_trim(0);
#endif
}

}  // namespace unisched::bench
