// Child processes for multi-process tests: started with posix_spawn, output to files, and always
// stopped (SIGTERM, then SIGKILL) when the test is done with them.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "tests/eventually.hpp"
#include "tests/test_files.hpp"

namespace unisched::testing {

class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& args, const std::string& output_file)
      : output_(output_file) {
    std::vector<char*> argv;
    for (const auto& arg : args) {
      argv.push_back(const_cast<char*>(arg.c_str()));
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, output_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    const int failed = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    BOOST_TEST_REQUIRE(failed == 0, "cannot start " << args[0]);
  }
  ~ChildProcess() { stop(SIGKILL); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Sends `signal` (0: none, just wait) and waits up to 5 s (scaled) for the exit (then SIGKILL);
  /// returns the exit code, or -signal when a signal ended it.
  int stop(int signal = SIGTERM) {
    if (pid_ <= 0) {
      return status_;
    }
    if (signal != 0) {
      ::kill(pid_, signal);
    }
    const auto deadline = std::chrono::steady_clock::now() + scaled(std::chrono::seconds(5));
    int raw = 0;
    while (::waitpid(pid_, &raw, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &raw, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = 0;
    status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : -WTERMSIG(raw);
    return status_;
  }

  std::string output() const { return read_file(output_); }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
  int status_ = 0;
  std::string output_;
};

}  // namespace unisched::testing
