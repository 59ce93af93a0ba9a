// Manifests: documents of the scheduling.cluster.io/v1 kinds, read from YAML (or JSON) text and
// written back in canonical form. The entry point for everything that reads user files.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/cluster_profile.hpp"
#include "model/scheduling_quota.hpp"
#include "model/scheduling_request.hpp"

namespace unisched::model {

using Manifest = std::variant<ClusterResourceProfile, SchedulingRequest, SchedulingQuota>;

std::string_view kind_of(const Manifest& manifest);
const std::string& name_of(const Manifest& manifest);

/// One document's text within a YAML stream, and the 1-based line it starts on.
struct DocumentText {
  std::string_view text;
  int first_line = 1;
};

/// Splits a YAML stream at its "---" and "..." markers. Each document is then parsed on its own,
/// so a syntax error in one leaves the others readable.
std::vector<DocumentText> split_yaml_documents(std::string_view stream);

struct DecodedManifest {
  bool empty = false;                ///< nothing but comments or blank lines: not a document
  std::optional<Manifest> manifest;  ///< set exactly when there are no errors
  std::string kind;                  ///< as far as it could be read, for messages
  std::string name;                  ///< metadata.name as far as it could be read
  FieldErrors errors;                ///< every problem, each with its source line
};

/// Parses, decodes, defaults and validates one document.
DecodedManifest decode_manifest(const DocumentText& document);

enum class OutputFormat { Yaml, Json };

/// The canonical form of `manifests` (defaults filled in, quantities as Kubernetes prints them):
/// YAML documents separated by "---", or JSON (a kind: List when there is not exactly one).
std::string render_manifests(const std::vector<Manifest>& manifests, OutputFormat format);

}  // namespace unisched::model
