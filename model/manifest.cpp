#include "model/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <vector>

#include "model/manifest_codec.hpp"

namespace unisched::model {
namespace {

constexpr std::string_view kProfileKind = "ClusterResourceProfile";
constexpr std::string_view kRequestKind = "SchedulingRequest";
constexpr std::string_view kQuotaKind = "SchedulingQuota";

/// A line that starts with `marker` followed by nothing or white space.
bool is_marker_line(std::string_view line, std::string_view marker) {
  return line.substr(0, 3) == marker &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

/// metadata.name as written, read without consuming it, so messages can name the document
/// even when decoding fails.
std::string peek_name(const YAML::Node& root) {
  const YAML::Node metadata = root["metadata"];
  if (metadata && metadata.IsMap()) {
    const YAML::Node name = metadata["name"];
    if (name && name.IsScalar()) {
      return name.Scalar();
    }
  }
  return {};
}

/// Whether one path is the other or lies inside it ("spec" and "spec.replicas", "a[0]" and
/// "a[0].b").
bool overlaps(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  if (shorter.empty() || longer.compare(0, shorter.size(), shorter) != 0) {
    return shorter.empty();
  }
  return longer.size() == shorter.size() || longer[shorter.size()] == '.' ||
         longer[shorter.size()] == '[';
}

template <class Kind>
void finish(Kind decoded, DecodeContext& context, DecodedManifest& out) {
  // Semantic checks run even when some fields did not decode, so that one pass names every
  // problem; but not on a field that did not decode (it holds a stand-in value) nor on what
  // contains it or lies inside it, nor on a field a suggestion says was written under another
  // name.
  std::vector<std::string> undecoded = context.meant();
  for (const FieldError& error : context.errors()) {
    undecoded.push_back(error.path);
  }
  for (FieldError& error : validate_and_default(decoded)) {
    const bool about_undecoded =
        std::any_of(undecoded.begin(), undecoded.end(),
                    [&](const std::string& path) { return overlaps(path, error.path); });
    if (!about_undecoded) {
      error.line = context.line_of(error.path);
      context.errors().push_back(std::move(error));
    }
  }
  // In the order of the document's lines, as a reader fixes them.
  std::stable_sort(context.errors().begin(), context.errors().end(),
                   [](const FieldError& a, const FieldError& b) { return a.line < b.line; });
  if (context.errors().empty()) {
    out.manifest = std::move(decoded);
  }
}

}  // namespace

std::string_view kind_of(const Manifest& manifest) {
  return std::holds_alternative<ClusterResourceProfile>(manifest) ? kProfileKind
         : std::holds_alternative<SchedulingRequest>(manifest)    ? kRequestKind
                                                                  : kQuotaKind;
}

const std::string& name_of(const Manifest& manifest) {
  return std::visit([](const auto& object) -> const std::string& { return object.metadata.name; },
                    manifest);
}

std::vector<DocumentText> split_yaml_documents(std::string_view stream) {
  std::vector<DocumentText> documents;
  size_t start = 0;
  int start_line = 1;
  int line = 1;
  for (size_t pos = 0; pos < stream.size(); ++line) {
    const size_t end = std::min(stream.find('\n', pos), stream.size());
    const std::string_view text = stream.substr(pos, end - pos);
    if (is_marker_line(text, "---")) {
      documents.push_back({stream.substr(start, pos - start), start_line});
      start = pos + 3;  // the rest of a "---" line belongs to the next document
      start_line = line;
    } else if (is_marker_line(text, "...")) {
      documents.push_back({stream.substr(start, pos - start), start_line});
      start = std::min(end + 1, stream.size());
      start_line = line + 1;
    }
    pos = end + 1;
  }
  documents.push_back({stream.substr(std::min(start, stream.size())), start_line});
  return documents;
}

DecodedManifest decode_manifest(const DocumentText& document) {
  DecodedManifest out;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(document.text));
  } catch (const YAML::Exception& error) {
    const int line =
        error.mark.line >= 0 ? document.first_line + error.mark.line : document.first_line;
    out.errors.push_back(FieldError{FieldErrorType::Malformed, {}, {}, error.msg, line});
    return out;
  }
  if (root.IsNull()) {
    out.empty = true;
    return out;
  }
  DecodeContext context(document.first_line);
  if (!root.IsMap()) {
    context.error(FieldErrorType::TypeInvalid, FieldPath(), {},
                  std::string("a document must be an object, got ") + describe(yaml_type(root)),
                  root);
    out.errors = std::move(context.errors());
    return out;
  }
  out.name = peek_name(root);
  YamlObject object(root, FieldPath(), context);
  const auto api_version = object.string("apiVersion");
  const auto kind = object.string("kind");
  out.kind = kind.value_or("");
  if (!api_version) {
    context.error(FieldErrorType::Required, FieldPath("apiVersion"), {}, {}, root);
  } else if (*api_version != kApiVersion) {
    context.error(FieldErrorType::NotSupported, FieldPath("apiVersion"), quoted(*api_version),
                  "supported values: " + quoted(kApiVersion), root["apiVersion"]);
  }
  if (!kind) {
    context.error(FieldErrorType::Required, FieldPath("kind"), {}, {}, root);
  } else if (*kind == kProfileKind) {
    finish(decode_profile(object), context, out);
  } else if (*kind == kRequestKind) {
    finish(decode_request(object), context, out);
  } else if (*kind == kQuotaKind) {
    finish(decode_quota(object), context, out);
  } else {
    context.error(FieldErrorType::NotSupported, FieldPath("kind"), quoted(*kind),
                  "supported values: " + quoted(kProfileKind) + ", " + quoted(kQuotaKind) + ", " +
                      quoted(kRequestKind),
                  root["kind"]);
  }
  out.errors = std::move(context.errors());
  if (!out.errors.empty()) {
    out.manifest.reset();
  }
  return out;
}

std::string render_manifests(const std::vector<Manifest>& manifests, OutputFormat format) {
  auto out = format == OutputFormat::Yaml ? make_yaml_writer() : make_json_writer();
  const bool as_list = format == OutputFormat::Json && manifests.size() != 1;
  if (as_list) {
    out->begin_object();
    out->field("apiVersion", "v1");
    out->field("kind", "List");
    out->key("items");
    out->begin_list();
  }
  for (const Manifest& manifest : manifests) {
    out->next_document();
    if (const auto* profile = std::get_if<ClusterResourceProfile>(&manifest)) {
      encode_profile(*profile, *out);
    } else if (const auto* request = std::get_if<SchedulingRequest>(&manifest)) {
      encode_request(*request, *out);
    } else {
      encode_quota(std::get<SchedulingQuota>(manifest), *out);
    }
  }
  if (as_list) {
    out->end_list();
    out->end_object();
  }
  return out->finish();
}

}  // namespace unisched::model
