#include "runtime/manifest_loader.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "model/printable.hpp"

namespace unisched::runtime {
namespace {

namespace fs = std::filesystem;

bool is_manifest_file(const fs::path& path) {
  const std::string extension = path.extension().string();
  return extension == ".yaml" || extension == ".yml" || extension == ".json";
}

std::vector<fs::path> files_in(const fs::path& directory, bool recursive, std::error_code& error) {
  std::vector<fs::path> files;
  const auto collect = [&](auto iterator) {
    for (const auto& entry : iterator) {
      if (entry.is_regular_file() && is_manifest_file(entry.path())) {
        files.push_back(entry.path());
      }
    }
  };
  if (recursive) {
    collect(fs::recursive_directory_iterator(directory, error));
  } else {
    collect(fs::directory_iterator(directory, error));
  }
  std::sort(files.begin(), files.end());
  return files;
}

void add_file_problem(ManifestSet& set, const std::string& file, const std::string& message) {
  set.problems.push_back(ManifestProblem{ManifestSource{file, -1, 0}, {}, {}, message});
}

void load_file(const fs::path& path, ManifestSet& set, bool other_apis_allowed) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    add_file_problem(set, path.string(), "cannot read the file");
    return;
  }
  ++set.files_read;
  std::string text;
  if (!read_manifest_stream(stream, text)) {
    std::error_code unknown;
    const uintmax_t size = fs::file_size(path, unknown);
    add_file_problem(set, path.string(), manifest_too_large(path.string(), unknown ? 0 : size));
    return;
  }
  load_manifest_text(text, path.string(), set, other_apis_allowed);
}

/// Whether a document was refused only for being of another API group.
bool of_another_api(const model::DecodedManifest& decoded) {
  return !decoded.errors.empty() &&
         std::any_of(decoded.errors.begin(), decoded.errors.end(), [](const model::FieldError& e) {
           return e.path == "apiVersion" && e.type == model::FieldErrorType::NotSupported &&
                  e.value.rfind("\"scheduling.cluster.io/", 0) != 0;
         });
}

/// The later of two documents that claim the same identity is refused.
void refuse_duplicates(ManifestSet& set) {
  std::map<std::string, ManifestSource> seen;
  std::vector<LoadedManifest> kept;
  for (auto& loaded : set.manifests) {
    const std::string kind(model::kind_of(loaded.manifest));
    std::vector<std::pair<std::string, std::string>> identities = {
        {kind + "/" + model::name_of(loaded.manifest), "metadata.name"}};
    if (const auto* profile = std::get_if<model::ClusterResourceProfile>(&loaded.manifest)) {
      identities.emplace_back("clusterID/" + profile->spec.cluster_id, "spec.clusterID");
    }
    bool duplicate = false;
    for (const auto& [identity, field] : identities) {
      const auto [first, inserted] = seen.emplace(identity, loaded.source);
      if (!inserted) {
        const std::string value = identity.substr(identity.find('/') + 1);
        set.problems.push_back(ManifestProblem{
            loaded.source, kind, model::name_of(loaded.manifest),
            field + ": Duplicate value: " + model::quoted(value) + ": already defined in " +
                first->second.file + " document " + std::to_string(first->second.index)});
        duplicate = true;
        break;
      }
    }
    if (!duplicate) {
      kept.push_back(std::move(loaded));
    }
  }
  set.manifests = std::move(kept);
}

}  // namespace

std::string ManifestProblem::to_string() const {
  std::string text = source.file;
  if (source.line > 0) {
    text += ":" + std::to_string(source.line);
  }
  text += ": ";
  if (source.index >= 0) {
    text += "document " + std::to_string(source.index);
    if (!kind.empty() || !name.empty()) {
      text += " (" + (kind.empty() ? std::string("?") : kind) + "/" +
              (name.empty() ? std::string("?") : name) + ")";
    }
    text += ": ";
  }
  // File names, kinds, names and field paths come from the user: a newline or NUL in any of
  // them must not split or cut the line.
  return model::printable(text + message);
}

std::string manifest_too_large(const std::string& file, uint64_t size) {
  const std::string how_large = size > kMaxManifestBytes
                                    ? std::to_string(size) + " bytes"
                                    : "more than " + std::to_string(kMaxManifestBytes) + " bytes";
  return model::printable(file) + " is " + how_large + "; a manifest may be at most " +
         std::to_string(kMaxManifestBytes) + " bytes (3 MiB): split it into several files";
}

bool read_manifest_stream(std::istream& in, std::string& text) {
  text.clear();
  char buffer[64 * 1024];
  while (in && text.size() <= kMaxManifestBytes) {
    in.read(buffer, sizeof(buffer));
    text.append(buffer, static_cast<size_t>(in.gcount()));
  }
  if (text.size() > kMaxManifestBytes) {
    text.resize(kMaxManifestBytes + 1);
    return false;
  }
  return true;
}

void load_manifest_text(std::string_view text, const std::string& file_name, ManifestSet& into,
                        bool other_apis_allowed) {
  if (text.size() > kMaxManifestBytes) {
    add_file_problem(into, file_name, manifest_too_large(file_name, text.size()));
    return;
  }
  int index = 0;
  for (const model::DocumentText& document : model::split_yaml_documents(text)) {
    model::DecodedManifest decoded = model::decode_manifest(document);
    if (decoded.empty) {
      continue;
    }
    const ManifestSource start{file_name, index++, document.first_line};
    if (other_apis_allowed && of_another_api(decoded)) {
      into.other_apis.push_back(start);
      continue;
    }
    ++into.documents_seen;
    for (const model::FieldError& error : decoded.errors) {
      ManifestSource at = start;
      at.line = error.line > 0 ? error.line : start.line;
      into.problems.push_back(ManifestProblem{at, decoded.kind, decoded.name, error.to_string()});
    }
    if (decoded.manifest) {
      spdlog::debug("{} document {}: {} {} is valid", file_name, start.index,
                    model::kind_of(*decoded.manifest), model::name_of(*decoded.manifest));
      into.manifests.push_back(LoadedManifest{start, std::move(*decoded.manifest)});
    }
  }
}

ManifestSet load_manifests(const std::vector<std::string>& paths, const LoadOptions& options) {
  ManifestSet set;
  for (const std::string& name : paths) {
    const fs::path path(name);
    std::error_code error;
    const auto status = fs::status(path, error);
    if (error || !fs::exists(status)) {
      add_file_problem(set, name, "no such file or directory");
    } else if (fs::is_directory(status)) {
      const auto files = files_in(path, options.recursive, error);
      if (error) {
        add_file_problem(set, name, "cannot list the directory: " + error.message());
      }
      if (files.empty() && !error) {
        add_file_problem(set, name, "the directory holds no .yaml, .yml or .json files");
      }
      for (const auto& file : files) {
        load_file(file, set, true);
      }
    } else {
      load_file(path, set, false);
    }
  }
  refuse_duplicates(set);
  return set;
}

}  // namespace unisched::runtime
