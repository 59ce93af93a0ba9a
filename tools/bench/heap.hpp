// What this process's allocator holds: the bench's memory figures, whichever allocator the
// build links (gperftools' tcmalloc, or glibc's malloc in sanitizer builds).
#pragma once

#include <cstdint>
#include <string>

namespace unisched::bench {

/// The allocator this binary was linked against, named for the JSON lines.
std::string allocator_name();

/// Puts the heap on the pages UNISCHED_HEAP_PAGES asks for (runtime/heap_pages.hpp) and keeps
/// them for the JSON lines; why not, when the value is refused.
std::string choose_heap_pages();
/// "small", "huge" or "no hook": what choose_heap_pages() got.
std::string heap_pages_name();

/// Resident set size of this process, in bytes (from /proc/self/statm).
int64_t resident_bytes();

/// Heap bytes in use by live allocations, without what the allocator keeps free: the memory the
/// data itself takes, rounded up to the allocator's size classes.
int64_t heap_bytes_in_use();

/// Hands the heap's free pages back to the kernel, so that resident memory counts live data.
void release_free_heap();

}  // namespace unisched::bench
