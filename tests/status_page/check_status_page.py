#!/usr/bin/python3
"""The status page of `unisched serve --metrics`, loaded in headless Chromium (driven through the
DevTools protocol): it shows the clusters of a running hub, a cluster that joins after the page
loaded (its live refresh), GPU bars and a decision; a screenshot is saved.

Usage: check_status_page.py UNISCHED_BINARY SOURCE_DIR SCREENSHOT.png
Everything runs on loopback, on free ports, in a temporary directory; every process started is
stopped by its pid. Exits 0 when every check holds, 1 with the failed check otherwise.
"""
import base64
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket  # Debian's python3-websocket

TIMEOUT = 30 * int(os.environ.get("UNISCHED_TEST_WAIT_SCALE", "1"))


def wait_for(what, condition, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


class Processes:
    def __init__(self, scratch):
        self.scratch, self.started = scratch, []

    def start(self, name, args):
        log = open(os.path.join(self.scratch, name + ".log"), "w+")
        # Its own process group, so that a browser's helper processes stop with it.
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.started.append((process, log))
        return log

    def stop_all(self):
        for process, log in reversed(self.started):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
            log.close()


def log_text(log):
    log.flush()
    log.seek(0)
    return log.read()


class Page:
    """One Chromium tab over the DevTools protocol."""

    def __init__(self, devtools_port):
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{devtools_port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=TIMEOUT)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self.socket.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise AssertionError(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")


def shown_clusters(page):
    return page.evaluate(
        "Array.from(document.querySelectorAll('#clusters tbody tr')).map(r => r.dataset.cluster)"
    ) or []


def main(binary, source, screenshot):
    scratch = tempfile.mkdtemp(prefix="unisched-status-page-")
    processes = Processes(scratch)
    try:
        hub = processes.start("hub", [binary, "serve", "--listen", "127.0.0.1:0",
                                      "--metrics", "127.0.0.1:0"])
        text = wait_for("the hub to listen", lambda: re.search(
            r"metrics on 127\.0\.0\.1:(\d+)[\s\S]*listening on (127\.0\.0\.1:\d+)", log_text(hub)))
        page_url, hub_address = f"http://127.0.0.1:{text.group(1)}/", text.group(2)
        profiles = os.path.join(source, "config", "profiles")
        processes.start("agent-t4", [binary, "agent", "--hub", hub_address, "--profile",
                                     os.path.join(profiles, "t4-vm-useast.yaml")])
        profile_dir = os.path.join(scratch, "chromium")
        processes.start("chromium", ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                                     "--remote-debugging-port=0", "--user-data-dir=" + profile_dir,
                                     "--window-size=1280,1400", "about:blank"])
        active_port = os.path.join(profile_dir, "DevToolsActivePort")
        devtools_port = wait_for("Chromium's DevTools port", lambda: os.path.exists(active_port)
                                 and open(active_port).read().split("\n")[0])
        page = Page(int(devtools_port))
        page.call("Page.navigate", url=page_url)
        wait_for("the page to show t4-useast", lambda: "t4-useast" in shown_clusters(page))
        page.evaluate("window.loadedOnce = 'yes'")  # gone if the page were loaded again
        processes.start("agent-a100", [binary, "agent", "--hub", hub_address, "--profile",
                                       os.path.join(profiles, "a100-nvlink-uswest.yaml")])
        wait_for("a100-uswest, which joined after the page loaded",
                 lambda: "a100-uswest" in shown_clusters(page))
        assert page.evaluate("window.loadedOnce") == "yes", "the page was loaded again"
        submit = subprocess.run([binary, "submit", "-f",
                                 os.path.join(source, "config", "requests", "examples.yaml"),
                                 "--hub", hub_address, "--wait"], capture_output=True, text=True,
                                timeout=TIMEOUT)
        # Its exit status says whether every request was placed in full; some are not here.
        assert "created" in submit.stdout, "submit failed: " + submit.stdout + submit.stderr
        wait_for("a decision on the page", lambda: page.evaluate(
            "document.querySelectorAll('#decisions tbody tr td:nth-child(2)').length") >= 1)
        bars = page.evaluate("Array.from(document.querySelectorAll('#gpus tbody tr'))"
                             ".map(r => r.cells[0].textContent)")
        assert {"t4-useast", "a100-uswest"} <= set(bars), f"GPU bars for {bars}"
        health = page.evaluate("document.querySelector('#clusters tbody tr td:nth-child(2)')"
                               ".textContent")
        assert health in ("healthy", "unhealthy"), f"health cell says {health!r}"
        image = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        with open(screenshot, "wb") as out:
            out.write(base64.b64decode(image["data"]))
        print(f"status page: clusters {shown_clusters(page)}, screenshot {screenshot}")
        return 0
    except AssertionError as failure:
        print("FAILED: " + str(failure), file=sys.stderr)
        for name in ("hub", "agent-t4", "agent-a100"):
            path = os.path.join(scratch, name + ".log")
            if os.path.exists(path):
                print(f"--- {name}.log (tail)\n" + open(path).read()[-2000:], file=sys.stderr)
        return 1
    finally:
        processes.stop_all()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
