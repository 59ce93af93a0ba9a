#include "tools/unisched/cli.hpp"

#include <algorithm>

namespace unisched::cli {

namespace {

const Flag* find_flag(const std::vector<Flag>& flags, const std::string& name, char short_name) {
  const auto match = std::find_if(flags.begin(), flags.end(), [&](const Flag& flag) {
    return short_name != '\0' ? flag.short_name == short_name : flag.name == name;
  });
  return match == flags.end() ? nullptr : &*match;
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
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      parsed.add_positional(arg);
      continue;
    }
    std::string name;
    std::string inline_value;
    bool has_inline_value = false;
    const Flag* flag = nullptr;
    if (arg[1] == '-') {
      const size_t equals = arg.find('=');
      name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
      if (equals != std::string::npos) {
        inline_value = arg.substr(equals + 1);
        has_inline_value = true;
      }
      flag = find_flag(flags, name, '\0');
    } else {
      if (arg.size() > 2) {
        inline_value = arg.substr(2);  // -fFILE
        has_inline_value = true;
      }
      flag = find_flag(flags, {}, arg[1]);
    }
    if (flag == nullptr) {
      error = "unknown flag " + (arg.substr(0, arg.find('='))) + " for 'unisched " + verb.name +
              "' (see 'unisched " + verb.name + " --help')";
      return false;
    }
    const std::string shown = "--" + flag->name;
    std::string value;
    if (flag->value_name.empty()) {
      if (has_inline_value) {
        error = "flag " + shown + " takes no value";
        return false;
      }
    } else if (has_inline_value) {
      value = inline_value;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      error = "flag " + shown + " needs a value (" + flag->value_name + ")";
      return false;
    }
    if (!flag->repeatable && parsed.has(flag->name)) {
      error = "flag " + shown + " is given more than once";
      return false;
    }
    parsed.add(flag->name, std::move(value));
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
          "score the best of N fitting nodes drawn at random per replica instead of every node "
          "(default 0: every node); for fleets of many thousand nodes"};
}

}  // namespace unisched::cli
