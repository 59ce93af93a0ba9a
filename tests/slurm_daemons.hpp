// A real Slurm cluster for tests: slurmctld and one slurmd per node (Debian's slurmd runs
// several on one host with -N NAME), in a scratch directory, on free loopback ports, without
// munge (auth/none), with fake GPUs (character devices that are /dev/null). Started in the
// foreground as child processes and stopped by pid. Needs root (mknod) and the Debian packages
// slurmctld, slurmd and slurm-client, which ./tools/dev.sh test installs; tests skip without.
#pragma once

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/child_process.hpp"
#include "tests/eventually.hpp"
#include "tests/hub_process.hpp"
#include "tests/test_files.hpp"

namespace unisched::testing {

/// Why the Slurm daemons cannot run here; empty when they can.
inline std::string slurm_unavailable() {
  if (::geteuid() != 0) {
    return "the fake GPUs need root (mknod)";
  }
  // Fake GPUs are character devices; a container without CAP_MKNOD cannot make them.
  const ScratchDirectory scratch;
  if (::mknod((scratch.path() + "/probe").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    return "cannot make the fake GPUs' character devices (mknod needs CAP_MKNOD)";
  }
  for (const char* binary : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"}) {
    if (::access(binary, X_OK) != 0) {
      return std::string(binary) +
             " is not installed (apt-get install slurmctld slurmd "
             "slurm-client, as ./tools/dev.sh test does)";
    }
  }
  return {};
}

/// A Boost.Test precondition: the test is skipped, saying why, where Slurm cannot run.
struct SlurmAvailable {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    const std::string why = slurm_unavailable();
    boost::test_tools::assertion_result result(why.empty());
    result.message() << why;
    return result;
  }
};

struct SlurmNodeSpec {
  std::string name;
  int cpus = 8;
  int memory_mb = 32768;
  std::vector<std::pair<std::string, int>> gpus;  ///< type, count
  std::string features;
};

struct SlurmDaemons {
  ScratchDirectory dir;
  std::string conf;
  std::vector<std::unique_ptr<ChildProcess>> processes;

  /// Starts slurmctld and every node's slurmd; returns once every node is idle.
  explicit SlurmDaemons(const std::vector<SlurmNodeSpec>& nodes) {
    conf = dir.path() + "/slurm.conf";
    write_config(nodes);
    start_controller();
    for (const SlurmNodeSpec& node : nodes) {
      ::mkdir((dir.path() + "/state-" + node.name).c_str(), 0755);
      processes.push_back(std::make_unique<ChildProcess>(
          std::vector<std::string>{"/usr/sbin/slurmd", "-D", "-N", node.name, "-f", conf},
          dir.path() + "/slurmd-" + node.name + ".out"));
    }
    eventually([&] { return all_idle(nodes.size()); }, "every slurm node idle",
               std::chrono::seconds(60));
  }

  /// Cancels every job first: a job's slurmstepd outlives a killed slurmd. What still runs
  /// after that (a cancel slurmd had no time for) is killed by pid: every job process carries
  /// this cluster's SLURM_CONF.
  ~SlurmDaemons() {
    run("scancel --full --user=root");
    for (int wait = 0; wait < 50 && !run("squeue -h -o %i").second.empty(); ++wait) {
      ::usleep(100'000);
    }
    kill_job_processes();
  }
  SlurmDaemons(const SlurmDaemons&) = delete;
  SlurmDaemons& operator=(const SlurmDaemons&) = delete;

  /// Runs a Slurm command (sbatch, scontrol, squeue, ...) against this cluster; its exit status
  /// and output.
  std::pair<int, std::string> run(const std::string& command) const {
    const std::string out = dir.path() + "/command.out";
    const int status = std::system(
        ("SLURM_CONF=" + conf + " timeout 30 " + command + " >" + out + " 2>&1").c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out)};
  }

  /// Stops slurmctld and starts it again from its saved state.
  void restart_controller() {
    processes.front()->stop();
    start_controller(false);
  }

 private:
  void start_controller(bool fresh = true) {
    std::vector<std::string> args = {"/usr/sbin/slurmctld", "-D", "-f", conf};
    if (fresh) {
      args.push_back("-i");
    }
    auto controller = std::make_unique<ChildProcess>(args, dir.path() + "/slurmctld.out");
    if (processes.empty()) {
      processes.push_back(std::move(controller));
    } else {
      processes.front() = std::move(controller);
    }
  }

  void kill_job_processes() const {
    const std::string marker = "SLURM_CONF=" + conf;
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
      const std::string pid = entry.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) {
        continue;
      }
      std::ifstream environ(entry.path() / "environ", std::ios::binary);
      std::string variable;
      while (std::getline(environ, variable, '\0')) {
        if (variable == marker) {
          ::kill(std::stoi(pid), SIGKILL);
          break;
        }
      }
    }
  }

  bool all_idle(size_t nodes) const {
    const auto [status, output] = run("sinfo -h -N -o '%N %t'");
    size_t idle = 0;
    for (size_t at = output.find(" idle"); at != std::string::npos;
         at = output.find(" idle", at + 1)) {
      ++idle;
    }
    return status == 0 && idle == nodes;
  }

  void write_config(const std::vector<SlurmNodeSpec>& nodes) {
    const std::string& d = dir.path();
    std::string text =
        "ClusterName=slurm-test\nSlurmctldHost=localhost\nSlurmUser=root\nSlurmdUser=root\n"
        "SlurmctldPort=" +
        std::to_string(free_port()) +
        "\nAuthType=auth/none\nCredType=cred/none\n"
        "StateSaveLocation=" +
        d + "\nSlurmdSpoolDir=" + d + "/state-%n\nSlurmctldPidFile=" + d +
        "/slurmctld.pid\nSlurmdPidFile=" + d + "/slurmd-%n.pid\nSlurmctldLogFile=" + d +
        "/slurmctld.log\nSlurmdLogFile=" + d +
        "/slurmd-%n.log\nMailProg=/bin/true\nProctrackType=proctrack/linuxproc\n"
        "TaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
        "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
        "MpiDefault=none\nSwitchType=switch/none\nSchedulerType=sched/backfill\n"
        "SchedulerParameters=batch_sched_delay=0\nSelectType=select/cons_tres\n"
        "SelectTypeParameters=CR_Core_Memory\nGresTypes=gpu\nReturnToService=2\n"
        "SlurmdParameters=config_overrides\nMinJobAge=300\nNodeName=DEFAULT State=UNKNOWN\n";
    std::string gres;
    for (const SlurmNodeSpec& node : nodes) {
      text += "NodeName=" + node.name +
              " NodeHostname=localhost NodeAddr=127.0.0.1 Port=" + std::to_string(free_port()) +
              " CPUs=" + std::to_string(node.cpus) +
              " RealMemory=" + std::to_string(node.memory_mb);
      std::string node_gres;
      int device = 0;
      for (const auto& [type, count] : node.gpus) {
        node_gres += (node_gres.empty() ? "" : ",") + std::string("gpu:") + type + ":" +
                     std::to_string(count);
        for (int i = 0; i < count; ++i, ++device) {
          const std::string path = d + "/" + node.name + "-gpu" + std::to_string(device);
          ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3));
          gres += "NodeName=" + node.name + " Name=gpu Type=" + type + " File=" + path + "\n";
        }
      }
      text += node_gres.empty() ? "" : " Gres=" + node_gres;
      text += node.features.empty() ? "" : " Feature=" + node.features;
      text += "\n";
    }
    text += "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
    dir.write("slurm.conf", text);
    dir.write("gres.conf", gres);
  }
};

}  // namespace unisched::testing
