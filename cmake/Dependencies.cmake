# Every third-party dependency, found as Debian 12 installs it. Nothing is downloaded.
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")

find_package(CAF 0.17 REQUIRED COMPONENTS core io openssl)
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(absl CONFIG REQUIRED)
find_package(ZLIB REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(yaml-cpp CONFIG REQUIRED)
find_package(nlohmann_json 3 CONFIG REQUIRED)
find_package(simdjson CONFIG REQUIRED)
find_package(CURL REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS unit_test_framework)
# cpp-httplib ships a compiled library whose defines (TLS, zlib, brotli) the build must share.
find_package(PkgConfig REQUIRED)
pkg_check_modules(CPP_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)

# The executables allocate through gperftools' tcmalloc: glibc's malloc took a fifth of the
# decision and ingest profiles, much of it in arena locks between CAF's threads (BENCHMARKS.md,
# "tcmalloc"). Sanitizer and fuzzing builds keep the allocator their sanitizer brings.
option(UNISCHED_TCMALLOC "Link the executables against gperftools' tcmalloc" ON)
add_library(unisched_allocator INTERFACE)
set(UNISCHED_ALLOCATOR "glibc malloc")  # the name unisched-bench reports
if(UNISCHED_TCMALLOC AND NOT (UNISCHED_ASAN_UBSAN OR UNISCHED_TSAN OR UNISCHED_FUZZ))
  set(UNISCHED_ALLOCATOR "gperftools")
  pkg_check_modules(TCMALLOC REQUIRED IMPORTED_TARGET libtcmalloc_minimal)
  target_link_libraries(unisched_allocator INTERFACE PkgConfig::TCMALLOC)
  target_compile_definitions(unisched_allocator INTERFACE UNISCHED_TCMALLOC=1)
endif()
