#!/usr/bin/python3
"""Runs the README's five-minute tour as a reader would, and fails if any command does not exit 0.

The tour is the ```sh block after the README's `<!-- tour -->` marker. Each line runs from the
root of the clone, with the README's binary path replaced by the build's and its ports (4242)
by free ones, and its log files land in a temporary folder. A line ending in `&` starts a process that runs on: the next line waits until it
is ready (a hub listening, an agent's cluster listed by the hub), as a reader would before typing
it. At the end every such process is stopped with SIGINT, as Ctrl-C would, and must exit 0.

Usage: check_tour.py UNISCHED_BINARY SOURCE_DIR
"""
import ctypes
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time

README_BINARY = "./build/tools/unisched/unisched"
README_PORT = "4242"
COMMAND_TIMEOUT_S = 120
READY_TIMEOUT_S = 30


def die_with_the_test():
    """In the child: SIGTERM when this script dies, even by SIGKILL (a ctest time-out), so no
    hub or agent outlives the test. PR_SET_PDEATHSIG survives the exec of the command."""
    pr_set_pdeathsig = 1
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def tour_lines(readme):
    found = re.search(r"<!-- tour -->\s*```sh\n(.*?)```", readme, re.S)
    if not found:
        sys.exit("README.md has no ```sh block after <!-- tour -->")
    lines = []
    for line in found.group(1).splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            lines.append(line)
    return lines


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def wait_until(ready, what):
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.2)
    sys.exit(f"not ready after {READY_TIMEOUT_S} s: {what}")


def listening(port):
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", int(port))) == 0


def cluster_healthy(binary, port, cluster):
    """Whether `get clusters` lists the cluster with "yes" in its HEALTHY column."""
    listed = subprocess.run([binary, "get", "clusters", "--hub", f"127.0.0.1:{port}"],
                            capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    rows = [line.split() for line in listed.stdout.splitlines() if line.strip()]
    if listed.returncode != 0 or not rows or "HEALTHY" not in rows[0]:
        return False
    healthy = rows[0].index("HEALTHY")
    return any(row[0] == cluster and len(row) > healthy and row[healthy] == "yes"
               for row in rows[1:])


def profile_cluster(line, source):
    """The clusterID of the profile an agent line names."""
    words = shlex.split(line)
    profile = words[words.index("--profile") + 1]
    with open(os.path.join(source, profile)) as text:
        return re.search(r"^\s*clusterID:\s*(\S+)", text.read(), re.M).group(1)


def main():
    binary, source = sys.argv[1], sys.argv[2]
    with open(os.path.join(source, "README.md")) as readme:
        lines = tour_lines(readme.read())
    port = free_port()
    running = []  # (line, process)
    logs = tempfile.mkdtemp(prefix="unisched-tour-")
    failures = 0
    try:
        for line in lines:
            command = line.replace(README_BINARY, binary).replace(README_PORT, port)
            # The tour's logs go to files in the clone; the test's go to its own folder.
            command = re.sub(r"2>(\S+)", lambda name: "2>" + os.path.join(logs, name.group(1)),
                             command)
            if command.endswith("&"):
                log = open(os.path.join(logs, f"background-{len(running)}.log"), "w")
                process = subprocess.Popen("exec " + command[:-1], shell=True, cwd=source,
                                           stdout=log, stderr=subprocess.STDOUT,
                                           preexec_fn=die_with_the_test)
                running.append((line, process))
                if " serve " in command:
                    wait_until(lambda: listening(port), "the hub on port " + port)
                elif " agent " in command:
                    cluster = profile_cluster(command, source)
                    wait_until(lambda: cluster_healthy(binary, port, cluster),
                               f"cluster {cluster} healthy at the hub")
                print(f"started: {line}", flush=True)
                continue
            ran = subprocess.run(command, shell=True, cwd=source, capture_output=True, text=True,
                                 timeout=COMMAND_TIMEOUT_S)
            print(f"exit {ran.returncode}: {line}\n{ran.stdout}{ran.stderr}", flush=True)
            if ran.returncode != 0:
                failures += 1
    finally:
        for line, process in reversed(running):
            process.send_signal(signal.SIGINT)
            try:
                status = process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                status = process.wait()
            print(f"stopped with exit {status}: {line}", flush=True)
            failures += status != 0
    if failures:
        sys.exit(f"{failures} tour commands failed (background logs in {logs})")
    print(f"every tour command exited 0 ({len(lines)} lines)")


if __name__ == "__main__":
    main()
