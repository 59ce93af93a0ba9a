// The heap on the kernel's 2 MiB pages, when asked. A sampled decision reads nodes spread over a
// heap of hundreds of MiB; on 4 KiB pages nearly every drawn node misses the TLB as well as the
// cache. Each huge page costs a 2 MiB fault the first time it is touched, which makes a heap that
// grows (a listing, an ingest at fleet size) slower: docs/benchmarks-history.md, "Devices in 32
// bytes; the heap on huge pages".
#pragma once

#include <string>

namespace unisched::runtime {

enum class HeapPages {
  Small,   ///< the kernel's default pages: UNISCHED_HEAP_PAGES unset or "small"
  Huge,    ///< UNISCHED_HEAP_PAGES=huge: ranges taken from here on are advised onto huge pages
  NoHook,  ///< huge pages asked for, but this executable does not allocate through tcmalloc
};

struct HeapPagesChoice {
  HeapPages pages = HeapPages::Small;
  std::string problem;  ///< why UNISCHED_HEAP_PAGES was refused; empty when it was not
};

/// Reads UNISCHED_HEAP_PAGES. With "huge", every range tcmalloc takes from the kernel from here
/// on is whole, aligned 2 MiB pages advised MADV_HUGEPAGE (Debian's kernels honour the advice in
/// their default "madvise" mode, and fall back to small pages when no huge page is free). Call
/// it first in main, before other threads start. Any value other than "huge" or "small" is
/// refused, naming it, and the heap stays as it was.
HeapPagesChoice heap_pages_from_environment();

/// "small", "huge" or "no hook", as a bench's JSON line reports it.
const char* describe(HeapPages pages);

}  // namespace unisched::runtime
