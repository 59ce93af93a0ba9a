#!/usr/bin/env bash
# Usage: tools/dev.sh run [unisched flags...] | test | build | test-asan [ctest flags...]
#                    | test-tsan [ctest flags...] | fuzz SECONDS [TARGET...]
#   run    install what is missing, build, and run the main job, `unisched run` (extra
#          arguments are added to it, e.g. tools/dev.sh run --duration 30s --report json)
#   test   install what is missing, build, and run every test with ctest, then each fuzz
#          target for a few seconds (built with clang in ./build-fuzz)
#   build  install what is missing and build
#   test-asan  the same tests built with AddressSanitizer and UndefinedBehaviorSanitizer, in
#          ./build-asan (extra arguments go to ctest, e.g. -R quota)
#   test-tsan  the actor tests (ctest label "actors") built with ThreadSanitizer, in ./build-tsan
#   fuzz   run each fuzz target (all, or those named) for SECONDS, adding what it finds to
#          tests/fuzz/corpus, then minimise the corpus; crashes go to build-fuzz/tests/fuzz/artifacts
#          (once fixed, keep each in tests/fuzz/regressions)
# Works on a fresh Debian 12 machine as root: missing packages come from apt-get; the one other
# download is the Node.js gRPC test's npm packages (pinned by tests/grpc_node/package-lock.json).
# Build output goes to ./build (override with UNISCHED_BUILD_DIR).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${UNISCHED_BUILD_DIR:-"$repo/build"}
# ccache keys objects by paths relative to the clone and leaves the working directory out, so a
# second clone of the same sources (CI's, in another folder) reuses what a first one compiled.
# The cost: a cached object's debug information names the folder it was first compiled in.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-"$repo"} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-true}
packages=(
  cmake ninja-build g++ ccache pkg-config libssl-dev openssl zlib1g-dev
  libcaf-dev libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  libabsl-dev libspdlog-dev libboost-test-dev libyaml-cpp-dev libbenchmark-dev nlohmann-json3-dev
  libcli11-dev libsimdjson-dev libcurl4-openssl-dev libslurm-dev libcpp-httplib-dev
  etcd-server golang-etcd-server-dev libgoogle-perftools-dev
)

log() { printf '[dev] %s\n' "$*" >&2; }

install_missing() {
  local missing=() package
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' ||
      missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

build() {
  install_missing
  log "configuring and building in $build_dir"
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$build_dir" --parallel "$(nproc)"
}

test_packages() {
  # The gRPC test drives the server from Node.js with packages npm installs from the lock file.
  command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
  # The Kubernetes tests run the real kubectl; Debian's (1.20) only where none is installed,
  # since the two conflict.
  command -v kubectl >/dev/null || packages+=(kubernetes-client)
  # The Slurm tests start a real slurmctld and slurmd on loopback.
  packages+=(slurmctld slurmd slurm-client)
  # The fuzz targets are built with clang's libFuzzer.
  packages+=(clang libclang-rt-14-dev)
  # The status page test drives headless Chromium from Debian's Python.
  packages+=(chromium python3 python3-websocket)
}

fuzz_build_dir=${UNISCHED_FUZZ_BUILD_DIR:-"$repo/build-fuzz"}

build_fuzz() {
  log "configuring and building the fuzz targets in $fuzz_build_dir"
  CC=clang CXX=clang++ cmake -S "$repo" -B "$fuzz_build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUNISCHED_FUZZ=ON -DUNISCHED_WERROR=ON >/dev/null
  cmake --build "$fuzz_build_dir" --parallel "$(nproc)"
}

# Runs each target for $1 seconds on its corpus in the repository, then merges what it found
# into a minimal corpus that covers as much (libFuzzer's -merge=1) and puts that in its place.
fuzz_campaign() {
  local seconds=$1 target corpus regressions minimal
  shift
  local targets=("$@")
  [ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(ls "$repo/tests/fuzz/corpus")
  local logs="$fuzz_build_dir/tests/fuzz/logs"
  mkdir -p "$fuzz_build_dir/tests/fuzz/artifacts" "$logs"
  for target in "${targets[@]}"; do
    corpus="$repo/tests/fuzz/corpus/$target"
    regressions=()
    [ -d "$repo/tests/fuzz/regressions/$target" ] && regressions=("$repo/tests/fuzz/regressions/$target")
    log "fuzzing $target for ${seconds}s (log: $logs/$target.log)"
    "$fuzz_build_dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$fuzz_build_dir/tests/fuzz/artifacts/$target-" \
      "$corpus" "${regressions[@]}" >"$logs/$target.log" 2>&1 || true
    grep -E '^(stat::|SUMMARY)|DONE|fuzz property' "$logs/$target.log" >&2 || true
    minimal=$(mktemp -d)
    "$fuzz_build_dir/tests/fuzz/fuzz_$target" -merge=1 "$minimal" "$corpus" >/dev/null 2>&1
    rm -rf "$corpus" && mv "$minimal" "$corpus" && chmod 755 "$corpus"
    log "$target: corpus of $(ls "$corpus" | wc -l) inputs"
  done
}

# Debian's libcaf is not instrumented, and ThreadSanitizer cannot see the order CAF's lock-free
# mailboxes give messages: every message handed between threads would be reported as a race in
# the code that reads it. The ThreadSanitizer build therefore links CAF built, instrumented, from
# Debian's own source package of the installed version, into $1 (once; later runs reuse it). The
# source comes through apt with a source list of its own, so the machine's apt setup is untouched.
instrumented_caf() {
  local prefix=$1 work="$1-src" version orig
  [ -f "$prefix/lib/libcaf_core.so" ] && return 0
  version=$(dpkg-query -W -f='${source:Version}' libcaf-dev)
  log "building CAF $version with ThreadSanitizer into $prefix"
  rm -rf "$work" && mkdir -p "$work/parts" "$work/lists/partial"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    >"$work/parts/debian-source.sources"
  local apt=(apt-get -qq -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts"
    -o Dir::State::Lists="$work/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
  "${apt[@]}" update
  # apt checks every file it fetches against the signed index. Some mirrors lack the packaging
  # tarball: then the upstream tarball is built, checked here against the signed .dsc, with the
  # one change Debian's build makes to the installed headers.
  (cd "$work" && "${apt[@]}" source --download-only "actor-framework=$version") ||
    log "apt-get source did not fetch every file of actor-framework $version; using the upstream tarball"
  orig=$(ls "$work"/actor-framework_*.orig.tar.gz)
  grep -q "$(sha256sum "$orig" | cut -d' ' -f1)" "$work"/actor-framework_*.dsc ||
    { log "$orig does not match its .dsc"; return 1; }
  tar xzf "$orig" -C "$work"
  local source=("$work"/actor-framework-*/)
  # The include GCC 12 needs, which Debian's installed header has.
  grep -q '<limits>' "$source/libcaf_io/caf/io/network/receive_buffer.hpp" ||
    sed -i 's|#include <cstring>|#include <cstring>\n#include <limits>|' \
      "$source/libcaf_io/caf/io/network/receive_buffer.hpp"
  cmake -S "$source" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS="-std=c++11 -fsanitize=thread -fno-omit-frame-pointer" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCAF_NO_EXAMPLES=yes -DCAF_NO_UNIT_TESTS=yes \
    -DCAF_NO_OPENCL=yes -DCAF_NO_PYTHON=yes -DCAF_NO_TOOLS=yes >/dev/null
  cmake --build "$work/build" --parallel "$(nproc)"
  cmake --install "$work/build" >/dev/null
}

# ctest in build directory $1 (further arguments go to ctest), then the reason for each skipped
# test, which ctest itself does not print: the tests write `SKIPPED <case>: <reason>`.
run_ctest() {
  local dir=$1 status=0 skipped
  shift
  ctest --test-dir "$dir" --output-on-failure --parallel "$(nproc)" "$@" || status=$?
  skipped=$(grep -h '^SKIPPED ' "$dir/Testing/Temporary/LastTest.log" 2>/dev/null | sort -u || true)
  if [ -n "$skipped" ]; then
    log "$(printf '%s\n' "$skipped" | wc -l) test cases skipped, and why:"
    printf '%s\n' "$skipped" >&2
  fi
  return "$status"
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  run)
    build
    main_job=(run --profiles "$repo/config/profiles" "$@")
    log "running: unisched ${main_job[*]}"
    "$build_dir/tools/unisched/unisched" "${main_job[@]}"
    ;;
  test)
    test_packages
    build -DUNISCHED_WERROR=ON  # CI's build: a new warning fails it
    run_ctest "$build_dir" --timeout 600
    build_fuzz
    run_ctest "$fuzz_build_dir" --timeout 300
    ;;
  fuzz)
    [ $# -ge 1 ] || { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
    test_packages
    install_missing
    build_fuzz
    fuzz_campaign "$@"
    ;;
  test-asan)
    test_packages
    build_dir=${UNISCHED_ASAN_BUILD_DIR:-"$repo/build-asan"}
    build -DUNISCHED_ASAN_UBSAN=ON
    # Any report fails the test that caused it (child processes included); the suppressions
    # list other projects' findings, each with its reason. A smaller quarantine keeps the
    # processes' memory near what the tests that bound it expect.
    ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:quarantine_size_mb=32 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions="$repo/tests/ubsan.supp" \
      LSAN_OPTIONS=suppressions="$repo/tests/lsan.supp" \
      run_ctest "$build_dir" --timeout 900 "$@"
    ;;
  test-tsan)
    test_packages
    build_dir=${UNISCHED_TSAN_BUILD_DIR:-"$repo/build-tsan"}
    install_missing
    instrumented_caf "$build_dir/caf-tsan"
    build -DUNISCHED_TSAN=ON -DCMAKE_PREFIX_PATH="$build_dir/caf-tsan"
    # ignore_noninstrumented_modules: what libraries built without TSan (Abseil and gRPC, which
    # synchronise by atomics TSan cannot see) do inside memcpy and the like is not reported;
    # every access of the project's code and of CAF is still checked.
    TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:suppressions="$repo/tests/tsan.supp" \
      run_ctest "$build_dir" --timeout 900 \
      -L actors "$@"
    ;;
  build)
    build
    ;;
  *)
    sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
