#include "tools/unisched/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace unisched::cli {

namespace {

const Flag* find_flag(const std::vector<Flag>& flags, const std::string& name, char short_name) {
  const auto match = std::find_if(flags.begin(), flags.end(), [&](const Flag& flag) {
    return short_name != '\0' ? flag.short_name == short_name : flag.name == name;
  });
  return match == flags.end() ? nullptr : &*match;
}

/// Why CLI11 found `args` unexpected, in the flags' own words: the first argument that names no
/// flag, or gives a value to a switch.
std::string unexpected(const std::vector<std::string>& args, const std::vector<Flag>& flags,
                       const Verb& verb, const std::string& fallback) {
  for (const std::string& arg : args) {
    if (arg == "--") {
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      continue;
    }
    const bool long_form = arg[1] == '-';
    const std::string name = arg.substr(long_form ? 2 : 1, arg.find('=') - (long_form ? 2 : 1));
    const Flag* flag = long_form ? find_flag(flags, name, '\0') : find_flag(flags, {}, arg[1]);
    if (flag == nullptr) {
      return "unknown flag " + arg.substr(0, arg.find('=')) + " for 'unisched " + verb.name +
             "' (see 'unisched " + verb.name + " --help')";
    }
    if (flag->value_name.empty() && arg.find('=') != std::string::npos) {
      return "flag --" + flag->name + " takes no value";
    }
  }
  return fallback;
}

}  // namespace

std::string ParsedArgs::value(const std::string& flag, const std::string& fallback) const {
  const auto found = values_.find(flag);
  return found == values_.end() ? fallback : found->second.back();
}

std::vector<std::string> ParsedArgs::values(const std::string& flag) const {
  const auto found = values_.find(flag);
  return found == values_.end() ? std::vector<std::string>() : found->second;
}

std::vector<Flag> common_flags() {
  return {
      {"help", 'h', "", false, "show this help"},
      {"log-level", '\0', "LEVEL", false,
       "trace, debug, info, warn, error or off (default info); logs go to stderr"},
  };
}

bool parse_arguments(const Verb& verb, const std::vector<std::string>& args, ParsedArgs& parsed,
                     std::string& error) {
  std::vector<Flag> flags = verb.flags;
  for (Flag& flag : common_flags()) {
    flags.push_back(std::move(flag));
  }
  CLI::App app{verb.summary, "unisched " + verb.name};
  app.set_help_flag();  // --help is one of the flags: verb_help() writes it
  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, int64_t> switches;
  for (const Flag& flag : flags) {
    const std::string names =
        (flag.short_name != '\0' ? std::string("-") + flag.short_name + "," : "") + "--" +
        flag.name;
    if (flag.value_name.empty()) {
      app.add_flag(names, switches[flag.name], flag.help)->disable_flag_override();
    } else {
      app.add_option(names, values[flag.name], flag.help)
          ->type_name(flag.value_name)
          ->allow_extra_args(false);
    }
  }
  std::vector<std::string> positional;
  app.add_option("arguments", positional);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // as CLI11 parses a vector
  try {
    app.parse(reversed);
  } catch (const CLI::ExtrasError& failure) {
    error = unexpected(args, flags, verb, failure.what());
    return false;
  } catch (const CLI::ParseError& failure) {
    error = unexpected(args, flags, verb, std::string("flag ") + failure.what());
    return false;
  }
  for (const Flag& flag : flags) {
    const size_t given = flag.value_name.empty() ? static_cast<size_t>(switches[flag.name])
                                                 : values[flag.name].size();
    if (given > 1 && !flag.repeatable) {
      error = "flag --" + flag.name + " is given more than once";
      return false;
    }
    for (size_t i = 0; i < given; ++i) {
      parsed.add(flag.name, flag.value_name.empty() ? std::string() : values[flag.name][i]);
    }
  }
  for (std::string& argument : positional) {
    parsed.add_positional(std::move(argument));
  }
  return true;
}

bool parse_duration(const std::string& text, std::chrono::milliseconds& out) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  if (digits == 0 || digits > 9) {
    return false;
  }
  const long long amount = std::stoll(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  if (unit == "ms") {
    out = std::chrono::milliseconds(amount);
  } else if (unit == "s") {
    out = std::chrono::seconds(amount);
  } else if (unit == "m") {
    out = std::chrono::minutes(amount);
  } else {
    return false;
  }
  return true;
}

std::string verb_help(const Verb& verb) {
  std::string text = verb.summary + "\n\nUsage:\n  " + verb.usage + "\n";
  if (!verb.details.empty()) {
    text += "\n" + verb.details + "\n";
  }
  text += "\nFlags:\n";
  std::vector<Flag> flags = verb.flags;
  for (Flag& flag : common_flags()) {
    flags.push_back(std::move(flag));
  }
  for (const Flag& flag : flags) {
    std::string left = flag.short_name != '\0' ? std::string("-") + flag.short_name + ", " : "    ";
    left += "--" + flag.name + (flag.value_name.empty() ? "" : " " + flag.value_name);
    left.resize(std::max<size_t>(left.size() + 2, 28), ' ');
    text += "  " + left + flag.help + (flag.repeatable ? " (repeatable)" : "") + "\n";
  }
  return text;
}

std::string program_help(const std::vector<Verb>& verbs) {
  std::string text =
      "unisched places work across many heterogeneous clusters through one scheduling "
      "contract.\n\nUsage:\n  unisched <verb> [flags]\n\nVerbs:\n";
  for (const Verb& verb : verbs) {
    std::string name = verb.name;
    name.resize(std::max<size_t>(name.size() + 2, 12), ' ');
    text += "  " + name + verb.summary + "\n";
  }
  return text + "\nRun 'unisched <verb> --help' for a verb's flags.\n";
}

bool read_int(const ParsedArgs& args, const std::string& flag, int64_t min, int64_t max,
              int64_t& out, std::string& error) {
  if (!args.has(flag)) {
    return true;
  }
  const std::string text = args.value(flag);
  try {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value >= min && value <= max) {
      out = value;
      return true;
    }
  } catch (const std::exception&) {
  }
  error = "--" + flag + " must be a whole number from " + std::to_string(min) + " to " +
          std::to_string(max) + ", not \"" + text + "\"";
  return false;
}

Flag node_sample_flag() {
  return {"node-sample", '\0', "N", false,
          "score the best of N fitting nodes drawn at random per replica; 0: every node "
          "(default: every node in fleets up to 1000 nodes, 256 drawn in larger ones)"};
}

std::vector<Flag> update_limit_flags() {
  return {{"cluster-update-rate", '\0', "N", false,
           "updates a second each cluster's agent may push; over it they wait (default 200; "
           "0: no limit)"},
          {"cluster-change-rate", '\0', "N", false,
           "node changes a second each cluster's agent may push (default 100000; 0: no limit)"}};
}

bool read_update_limits(const ParsedArgs& args, actors::UpdateRateLimits& limits,
                        std::string& error) {
  int64_t updates = static_cast<int64_t>(limits.updates_per_second);
  int64_t changes = static_cast<int64_t>(limits.node_changes_per_second);
  if (!read_int(args, "cluster-update-rate", 0, 1'000'000, updates, error) ||
      !read_int(args, "cluster-change-rate", 0, 100'000'000, changes, error)) {
    return false;
  }
  limits = {static_cast<double>(updates), static_cast<double>(changes)};
  return true;
}

}  // namespace unisched::cli
