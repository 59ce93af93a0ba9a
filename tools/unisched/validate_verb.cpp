// unisched validate: checks manifest files and prints them back in canonical form.
#include <spdlog/spdlog.h>

#include <cstdio>

#include "model/printable.hpp"
#include "runtime/manifest_loader.hpp"
#include "tools/unisched/verbs.hpp"

namespace unisched::cli {
namespace {

int run_validate(const ParsedArgs& args) {
  const auto paths = args.values("filename");
  const std::string output = args.value("output");
  if (paths.empty()) {
    std::fprintf(stderr, "error: give at least one -f FILE|DIR (see 'unisched validate --help')\n");
    return 2;
  }
  if (!output.empty() && output != "yaml" && output != "json") {
    std::fprintf(stderr, "error: --output must be yaml or json, not \"%s\"\n", output.c_str());
    return 2;
  }
  runtime::LoadOptions options;
  options.recursive = args.has("recursive");
  const runtime::ManifestSet set = runtime::load_manifests(paths, options);
  spdlog::info("read {} documents from {} files", set.documents_seen, set.files_read);
  for (const auto& other : set.other_apis) {
    spdlog::info("{} document {}: of another API, left alone", model::printable(other.file),
                 other.index);
  }

  for (const auto& problem : set.problems) {
    std::fprintf(stderr, "%s\n", problem.to_string().c_str());
  }
  // With -o the documents own stdout; the summary then goes to stderr.
  std::FILE* summary = output.empty() ? stdout : stderr;
  if (output.empty()) {
    for (const auto& loaded : set.manifests) {
      std::fprintf(stdout, "%s/%s valid (%s, document %d)\n",
                   std::string(model::kind_of(loaded.manifest)).c_str(),
                   model::name_of(loaded.manifest).c_str(),
                   model::printable(loaded.source.file).c_str(), loaded.source.index);
    }
  } else {
    std::vector<model::Manifest> manifests;
    for (const auto& loaded : set.manifests) {
      manifests.push_back(loaded.manifest);
    }
    const auto format = output == "json" ? model::OutputFormat::Json : model::OutputFormat::Yaml;
    std::fputs(model::render_manifests(manifests, format).c_str(), stdout);
  }
  std::fprintf(summary, "%zu of %zu documents valid in %zu files; %zu problems%s\n",
               set.manifests.size(), set.documents_seen, set.files_read, set.problems.size(),
               set.other_apis.empty() ? ""
                                      : ("; " + std::to_string(set.other_apis.size()) +
                                         " documents of other APIs left alone")
                                            .c_str());
  return set.problems.empty() ? 0 : 1;
}

}  // namespace

Verb validate_verb() {
  return Verb{
      "validate",
      "Check ClusterResourceProfile, SchedulingRequest and SchedulingQuota manifests",
      "unisched validate -f FILE|DIR [-f ...] [-R] [-o yaml|json]",
      "Reads multi-document YAML (or JSON) files; a directory contributes its .yaml, .yml and\n"
      ".json files. Exits 0 when every document is valid. Otherwise exits 1 and prints one line\n"
      "per problem to stderr: FILE:LINE: document N (Kind/name): FIELD.PATH: reason.\n"
      "Valid documents are still accepted: with -o they are printed in canonical form\n"
      "(defaults filled in, quantities as Kubernetes prints them).\n"
      "\n"
      "Examples:\n"
      "  unisched validate -f config/\n"
      "  unisched validate -f config/profiles/a100-nvlink-uswest.yaml -o yaml",
      {
          {"filename", 'f', "FILE|DIR", true, "manifest file or directory"},
          {"recursive", 'R', "", false, "also read sub-directories of a directory"},
          {"output", 'o', "FORMAT", false, "print valid documents in canonical form: yaml or json"},
      },
      run_validate,
  };
}

}  // namespace unisched::cli
