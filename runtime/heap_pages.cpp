#include "runtime/heap_pages.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef UNISCHED_TCMALLOC
#include <gperftools/malloc_extension.h>
#include <sys/mman.h>
#endif

namespace unisched::runtime {
namespace {

#ifdef UNISCHED_TCMALLOC
constexpr size_t kHugePage = size_t{2} << 20;

/// Asks tcmalloc's own system allocator for whole, aligned huge pages, and advises the kernel
/// to back them so. The kernel only faults a huge page in where the advised range covers all of
/// it: a range of 1 MiB, as tcmalloc asks at first, would never get one.
class HugePageSystemAllocator : public SysAllocator {
 public:
  explicit HugePageSystemAllocator(SysAllocator* system) : system_(system) {}

  void* Alloc(size_t size, size_t* actual_size, size_t alignment) override {
    const size_t whole_pages = (size + kHugePage - 1) / kHugePage * kHugePage;
    void* range = system_->Alloc(whole_pages, actual_size, std::max(alignment, kHugePage));
    if (range != nullptr) {
      // Advice only: a kernel without transparent huge pages refuses it and keeps small pages.
      madvise(range, *actual_size, MADV_HUGEPAGE);
    }
    return range;
  }

 private:
  SysAllocator* system_;
};
#endif

}  // namespace

HeapPagesChoice heap_pages_from_environment() {
  const char* const asked = std::getenv("UNISCHED_HEAP_PAGES");
  if (asked == nullptr || std::strcmp(asked, "small") == 0) {
    return {HeapPages::Small, {}};
  }
  if (std::strcmp(asked, "huge") != 0) {
    return {HeapPages::Small, std::string("UNISCHED_HEAP_PAGES: \"") + asked +
                                  "\" is neither \"huge\" nor \"small\""};
  }
#ifdef UNISCHED_TCMALLOC
  MallocExtension* extension = MallocExtension::instance();
  SysAllocator* system = extension->GetSystemAllocator();
  if (system != nullptr) {
    // Never freed: tcmalloc may take ranges until the process has ended.
    static auto* const huge = new HugePageSystemAllocator(system);
    extension->SetSystemAllocator(huge);
    return {HeapPages::Huge, {}};
  }
#endif
  return {HeapPages::NoHook, {}};
}

const char* describe(HeapPages pages) {
  switch (pages) {
    case HeapPages::Small:
      return "small";
    case HeapPages::Huge:
      return "huge";
    case HeapPages::NoHook:
      return "no hook";
  }
  return "unknown";
}

}  // namespace unisched::runtime
