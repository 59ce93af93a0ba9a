// Reads manifest files from disk: single files or directories, several documents per file.
// A problem in one document never loses the others: each is accepted or reported on its own.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "model/manifest.hpp"

namespace unisched::runtime {

/// Where a document came from.
struct ManifestSource {
  std::string file;
  int index = -1;  ///< 0-based among the file's non-empty documents; -1 for the file itself
  int line = 0;    ///< 1-based line of the problem or the document's start; 0 when unknown
};

struct LoadedManifest {
  ManifestSource source;
  model::Manifest manifest;
};

struct ManifestProblem {
  ManifestSource source;
  std::string kind;  ///< empty when unknown
  std::string name;  ///< empty when unknown
  std::string message;

  /// "FILE:LINE: document N (Kind/name): spec.x: Invalid value: ...: reason", on one line:
  /// control characters are escaped.
  std::string to_string() const;
};

struct ManifestSet {
  std::vector<LoadedManifest> manifests;  ///< every valid document, in file order
  std::vector<ManifestProblem> problems;  ///< one entry per problem
  size_t files_read = 0;
  size_t documents_seen = 0;
  /// Documents of other APIs (a ClusterRole beside the profiles) in files found by walking a
  /// directory: left alone, not problems. A file named on its own has no such allowance.
  std::vector<ManifestSource> other_apis;
};

struct LoadOptions {
  bool recursive = false;  ///< also descend into sub-directories of a directory
};

/// The largest manifest text read or accepted, per file or submission: kube-apiserver's limit on
/// a request body (3 MiB). Larger texts are refused whole, before they are parsed.
inline constexpr size_t kMaxManifestBytes = 3 * 1024 * 1024;

/// The refusal of a text of `size` bytes from `file`, for when it exceeds kMaxManifestBytes.
std::string manifest_too_large(const std::string& file, uint64_t size);

/// Reads all of `in` into `text` unless it holds more than kMaxManifestBytes (then false, having
/// read one byte more than that).
bool read_manifest_stream(std::istream& in, std::string& text);

/// Loads every path: a file is read whatever its name; a directory contributes its *.yaml, *.yml
/// and *.json files in name order, whose documents of other API groups are counted in
/// `other_apis` and otherwise left alone. A missing or unreadable path is a problem, like a bad
/// document. Two profiles with one clusterID, or two documents of one kind and name, are
/// problems for the later one; the first stays accepted.
ManifestSet load_manifests(const std::vector<std::string>& paths, const LoadOptions& options = {});

/// Loads one in-memory stream as if it were the file `file_name`; one that exceeds
/// kMaxManifestBytes is one problem, and none of it is read.
/// With `other_apis_allowed`, documents whose apiVersion is not scheduling.cluster.io's go to
/// `other_apis` instead of `problems`.
void load_manifest_text(std::string_view text, const std::string& file_name, ManifestSet& into,
                        bool other_apis_allowed = false);

}  // namespace unisched::runtime
