// unisched: the single CLI binary. `unisched <verb> [flags]`; `unisched <verb> --help` for each.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/heap_pages.hpp"
#include "runtime/log_format.hpp"
#include "tools/unisched/verbs.hpp"

namespace {

bool configure_logging(const std::string& level_name) {
  auto logger = spdlog::stderr_color_mt("unisched");
  logger->set_formatter(unisched::runtime::make_escaping_formatter());
  spdlog::set_default_logger(logger);
  const auto level = spdlog::level::from_str(level_name);
  // from_str maps unknown names to "off"; only "off" itself may mean that.
  if (level == spdlog::level::off && level_name != "off") {
    return false;
  }
  spdlog::set_level(level);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // Before any thread, and before the views take the heap.
  if (const auto heap = unisched::runtime::heap_pages_from_environment(); !heap.problem.empty()) {
    std::fprintf(stderr, "error: %s\n", heap.problem.c_str());
    return 2;
  }
  using namespace unisched::cli;
  const std::vector<Verb> verbs = {run_verb(),      serve_verb(),  shard_verb(),    agent_verb(),
                                   apply_verb(),    submit_verb(), get_verb(),      describe_verb(),
                                   validate_verb(), replay_verb(), simulate_verb(), version_verb()};
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::fputs(program_help(verbs).c_str(), args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const Verb* verb = nullptr;
  for (const Verb& candidate : verbs) {
    if (candidate.name == args[0]) {
      verb = &candidate;
    }
  }
  if (verb == nullptr) {
    std::fprintf(stderr, "error: unknown verb \"%s\"\n\n%s", args[0].c_str(),
                 program_help(verbs).c_str());
    return 2;
  }
  ParsedArgs parsed;
  std::string error;
  if (!parse_arguments(*verb, {args.begin() + 1, args.end()}, parsed, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  if (parsed.has("help")) {
    std::fputs(verb_help(*verb).c_str(), stdout);
    return 0;
  }
  if (!parsed.positional().empty() && verb->name != "get" && verb->name != "describe") {
    std::fprintf(stderr, "error: unexpected argument \"%s\" (see 'unisched %s --help')\n",
                 parsed.positional().front().c_str(), verb->name.c_str());
    return 2;
  }
  if (!configure_logging(parsed.value("log-level", "info"))) {
    std::fprintf(stderr, "error: --log-level must be trace, debug, info, warn, error or off\n");
    return 2;
  }
  return verb->run(parsed);
}
