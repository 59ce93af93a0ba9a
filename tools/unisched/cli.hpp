// Command-line plumbing for `unisched <verb> [flags]`: each verb declares its flags once, and
// parsing, --help and usage errors follow from that declaration.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "cores/update_rate_limit.hpp"

namespace unisched::cli {

struct Flag {
  std::string name;         ///< long name, used as --name
  char short_name = '\0';   ///< single-letter alias, used as -x; '\0' for none
  std::string value_name;   ///< empty for a boolean switch, else what the value is ("FILE")
  bool repeatable = false;  ///< may be given several times
  std::string help;
};

class ParsedArgs;

struct Verb {
  std::string name;
  std::string summary;  ///< one line, shown in `unisched --help`
  std::string usage;    ///< e.g. "unisched validate -f FILE|DIR [-o yaml|json]"
  std::string details;  ///< paragraphs and examples for `unisched VERB --help`
  std::vector<Flag> flags;
  int (*run)(const ParsedArgs& args) = nullptr;
};

/// The flags given to one verb, after checking them against its declaration.
class ParsedArgs {
 public:
  bool has(const std::string& flag) const { return values_.count(flag) != 0; }
  /// The last value given for `flag`, or `fallback`.
  std::string value(const std::string& flag, const std::string& fallback = {}) const;
  std::vector<std::string> values(const std::string& flag) const;
  const std::vector<std::string>& positional() const { return positional_; }

  void add(const std::string& flag, std::string value) {
    values_[flag].push_back(std::move(value));
  }
  void add_positional(std::string value) { positional_.push_back(std::move(value)); }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

/// Flags every verb accepts.
std::vector<Flag> common_flags();

/// Parses `args` (without the verb itself). On a usage error, returns false and sets `error` to
/// a message naming the flag.
bool parse_arguments(const Verb& verb, const std::vector<std::string>& args, ParsedArgs& parsed,
                     std::string& error);

/// Reads --`flag` as a whole number within [min, max] into `out`, leaving `out` as it is when
/// the flag is absent; false, with `error` saying why, when it is not such a number.
bool read_int(const ParsedArgs& args, const std::string& flag, int64_t min, int64_t max,
              int64_t& out, std::string& error);

/// The --node-sample flag of the verbs that run schedulers.
Flag node_sample_flag();

/// The per-cluster update rate flags of the verbs that hold ClusterActors (serve, shard).
std::vector<Flag> update_limit_flags();

/// Reads those flags into `limits`, leaving the defaults where a flag is absent; false, with
/// `error` naming the flag, when one is not a whole number in range.
bool read_update_limits(const ParsedArgs& args, actors::UpdateRateLimits& limits,
                        std::string& error);

/// Parses a duration such as "500ms", "10s" or "2m"; false when it is not one.
bool parse_duration(const std::string& text, std::chrono::milliseconds& out);

std::string verb_help(const Verb& verb);
std::string program_help(const std::vector<Verb>& verbs);

}  // namespace unisched::cli
