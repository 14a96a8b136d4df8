"""A minimal client of the Chrome DevTools protocol over --remote-debugging-pipe
(fd 3: commands to the browser, fd 4: its replies and events; NUL-separated JSON),
with Python's standard library only. Used by the browser tests of goodsim report."""
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--remote-debugging-pipe", "--window-size=1280,900"]


def find_browser():
    for name in ("chromium-headless-shell", "chromium", "chrome-headless-shell"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless browser with one page; `timeout` bounds every wait (seconds)."""

    def __init__(self, binary, timeout=20):
        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory()
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()

        def wire():  # in the child: the pipe ends become fds 3 and 4, inheritable
            high_r, high_w = os.dup(cmd_r), os.dup(resp_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [binary, *BROWSER_FLAGS, f"--user-data-dir={self.profile.name}", "about:blank"],
            preexec_fn=wire, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(resp_w)
        self.buffer, self.next_id, self.events = b"", 0, []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable", session=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.resp_r], [], [], left)[0]:
                raise TimeoutError("the browser did not answer in time")
            chunk = os.read(self.resp_r, 1 << 20)
            if not chunk:
                raise ConnectionError("the browser closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method):
        """The first event `method` (taken out of the queue; other events stay in it)."""
        deadline = time.monotonic() + self.timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def errors(self):
        """Console errors, uncaught exceptions and failed loads seen so far (then forgotten)."""
        found = []
        for e in self.events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                found.append("console." + p["type"] + ": " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                found.append("exception: " + p["exceptionDetails"].get("text", "?"))
            elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
                found.append("log: " + p["entry"].get("text", "?"))
        self.events.clear()
        return found

    def open(self, url):
        """Loads `url` and returns once its load event fired."""
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def screenshot(self, path):
        import base64
        data = self.call("Page.captureScreenshot", {"format": "png",
                                                    "captureBeyondViewport": True},
                         session=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except (TimeoutError, ConnectionError, RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.resp_r)
        self.profile.cleanup()
