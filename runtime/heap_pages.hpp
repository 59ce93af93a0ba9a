// The heap on the kernel's 2 MiB pages. A sampled decision reads nodes spread over a heap of
// hundreds of MiB; on 4 KiB pages nearly every drawn node misses the TLB as well as the cache
// (BENCHMARKS.md, "The heap on huge pages").
#pragma once

namespace unisched::runtime {

enum class HeapPages {
  Huge,    ///< ranges taken from here on are advised onto huge pages
  Small,   ///< UNISCHED_HEAP_PAGES=small kept the kernel's default pages
  NoHook,  ///< the executable does not allocate through tcmalloc (sanitizer builds)
};

/// Makes every range tcmalloc takes from the kernel from here on whole, aligned 2 MiB pages
/// advised MADV_HUGEPAGE: Debian's kernels back such ranges with transparent huge pages in their
/// default "madvise" mode, and fall back to small pages when none is free. Call it first in
/// main, before other threads start. UNISCHED_HEAP_PAGES=small leaves the heap as it was.
HeapPages ask_for_huge_heap_pages();

/// "huge", "small" or "no hook", as a bench's JSON line reports it.
const char* describe(HeapPages pages);

}  // namespace unisched::runtime
