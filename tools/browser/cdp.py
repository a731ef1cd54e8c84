#!/usr/bin/python3
"""A small Chrome DevTools Protocol client for headless Chromium (Python stdlib only).

Transport: ``--remote-debugging-pipe``. Chromium reads commands from fd 3 and writes responses and
events to fd 4; each message is one JSON object terminated by a NUL byte. No port is opened, so
nothing else on the machine can talk to the browser and no port can clash between parallel runs.

    from cdp import Browser
    with Browser() as browser:
        page = browser.open("report.html")
        page.wait_ready(30)
        print(page.evaluate("document.title"))
        page.screenshot("out.png")
        print(page.errors)          # console errors, exceptions, failed or external requests

Every call has a timeout (CDPTimeout); the Chromium process group and its temporary profile are
always removed on exit (context manager, close(), or at interpreter exit as a last resort).
"""

import atexit
import base64
import fcntl
import json
import os
import pathlib
import select
import shutil
import signal
import subprocess
import tempfile
import time

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class CDPError(RuntimeError):
    """A protocol error answered by the browser, or the browser went away."""


class CDPTimeout(CDPError):
    """Nothing arrived in time."""


def find_chromium():
    """The Chromium executable: $CHROMIUM if set, else the first of the usual names on PATH."""
    env = os.environ.get("CHROMIUM")
    if env:
        return env if os.path.exists(env) else shutil.which(env)
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_version(executable=None, timeout=20):
    """'Chromium 1.2.3 ...' or None. The Debian wrapper script prints shell noise on stderr: ignored."""
    exe = executable or find_chromium()
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


class Browser:
    """One headless Chromium process driven over a pipe."""

    def __init__(self, executable=None, width=1280, height=900, timeout=30.0, extra_args=()):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise CDPError("chromium not found (install Debian's chromium package or set $CHROMIUM)")
        self.width, self.height, self.timeout = width, height, timeout
        self._extra_args = list(extra_args)
        self._proc = None
        self._profile = None
        self._wfd = self._rfd = None
        self._buf = bytearray()
        self._next_id = 0
        self._responses = {}  # id -> message, answers that arrived while waiting for another one
        self._sessions = {}  # sessionId -> Page
        self._stderr = None
        self._start()

    # ---- process ------------------------------------------------------------------------------
    def _start(self):
        _sweep_profiles()
        self._profile = tempfile.mkdtemp(prefix=f"tauvta-chromium-{os.getpid()}-")
        # commands: we write cmd_w, Chromium reads fd 3; answers: Chromium writes fd 4, we read res_r.
        cmd_r, cmd_w = os.pipe()
        res_r, res_w = os.pipe()
        args = [
            self.executable,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-pipe",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--mute-audio",
            "--force-device-scale-factor=1",
            "--allow-file-access-from-files",
            f"--window-size={self.width},{self.height}",
            f"--user-data-dir={self._profile}",
            *self._extra_args,
            "about:blank",
        ]

        prctl = _libc_prctl()

        def child_fds():  # runs in the child between fork and exec: put the pipe ends on fds 3 and 4
            # Copy both above 10 first so that neither dup2 overwrites the other's source, then
            # clear close-on-exec explicitly (dup2 onto the same fd number would keep it set).
            hi_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
            hi_w = fcntl.fcntl(res_w, fcntl.F_DUPFD, 10)
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)
            # If this Python process dies without closing the browser (SIGKILL, SIGTERM without a
            # handler), the kernel ends Chromium too; it would also quit on the pipe's EOF.
            if prctl is not None:
                prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG

        self._stderr = tempfile.TemporaryFile()
        try:
            # close_fds=False: fds 3 and 4 are made in preexec_fn and must survive exec; every fd
            # Python opened itself is close-on-exec anyway, so nothing else leaks to Chromium.
            self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=self._stderr, preexec_fn=child_fds, close_fds=False,
                                          start_new_session=True)
        except BaseException:
            for fd in (cmd_r, cmd_w, res_r, res_w):
                os.close(fd)
            shutil.rmtree(self._profile, ignore_errors=True)
            raise
        os.close(cmd_r)
        os.close(res_w)
        self._wfd, self._rfd = cmd_w, res_r
        atexit.register(self.close)
        try:
            self.version = self.send("Browser.getVersion", timeout=self.timeout)
        except BaseException:
            self.close()
            raise

    def close(self):
        """End Chromium (politely, then its whole process group by id) and remove the profile."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None and self._wfd is not None:
                try:
                    self._write({"id": self._new_id(), "method": "Browser.close"})
                except OSError:
                    pass
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            # The browser's helpers (zygote, renderer, GPU, crashpad) share its process group
            # because it was started in a new session; end that group only.
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                try:
                    proc.wait(timeout=5)
                    time.sleep(0.1)
                except subprocess.TimeoutExpired:
                    continue
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # stragglers of the group, if any
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for fd in (self._wfd, self._rfd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._wfd = self._rfd = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        if self._profile:
            for _ in range(5):  # a helper that is still exiting may write a file after the first try
                shutil.rmtree(self._profile, ignore_errors=True)
                if not os.path.exists(self._profile):
                    break
                time.sleep(0.2)
            self._profile = None
        try:
            atexit.unregister(self.close)
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def stderr_tail(self, n=2000):
        """The last characters Chromium wrote to stderr (for error messages)."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-n:]

    # ---- transport ----------------------------------------------------------------------------
    def _new_id(self):
        self._next_id += 1
        return self._next_id

    def _write(self, msg):
        data = json.dumps(msg).encode() + b"\0"
        while data:
            _, ready, _ = select.select([], [self._wfd], [], self.timeout)
            if not ready:
                raise CDPTimeout("writing to chromium timed out")
            n = os.write(self._wfd, data)
            data = data[n:]

    def _read_message(self, deadline):
        """The next message, or None when the deadline passed first."""
        # Only the bytes that arrived since the last look are searched for the NUL: a screenshot
        # answer is megabytes that come in pipe-sized pieces.
        end = self._buf.find(b"\0")
        while end < 0:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._rfd], [], [], min(left, 1.0))
            if not ready:
                if self._proc is None or self._proc.poll() is not None:
                    raise CDPError("chromium exited: " + self.stderr_tail())
                continue
            chunk = os.read(self._rfd, 1 << 20)
            if not chunk:
                raise CDPError("chromium closed the pipe: " + self.stderr_tail())
            at = chunk.find(b"\0")
            if at >= 0:
                end = len(self._buf) + at
            self._buf += chunk
        raw = bytes(self._buf[:end])
        del self._buf[:end + 1]
        return json.loads(raw)

    def _dispatch(self, msg):
        if "id" in msg:
            self._responses[msg["id"]] = msg
            return
        page = self._sessions.get(msg.get("sessionId"))
        if page is not None:
            page._on_event(msg.get("method", ""), msg.get("params", {}))

    def pump(self, seconds):
        """Handle events for this long (a short sleep that still records console errors)."""
        deadline = time.monotonic() + seconds
        while True:
            msg = self._read_message(deadline)
            if msg is None:
                return
            self._dispatch(msg)

    def send(self, method, params=None, session=None, timeout=None):
        """Send one command and return its result (raises CDPError on a protocol error)."""
        if self._proc is None:
            raise CDPError("browser is closed")
        msg_id = self._new_id()
        msg = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._write(msg)
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        while msg_id not in self._responses:
            got = self._read_message(deadline)
            if got is None:
                raise CDPTimeout(f"{method}: no answer in {timeout or self.timeout:.0f} s")
            self._dispatch(got)
        answer = self._responses.pop(msg_id)
        if "error" in answer:
            raise CDPError(f"{method}: {answer['error'].get('message')} {answer['error'].get('data', '')}".strip())
        return answer.get("result", {})

    # ---- pages --------------------------------------------------------------------------------
    def open(self, path, timeout=None):
        """A new tab showing the file (a path or a file:/http: URL), loaded (load event) and ready for
        evaluate(); console errors are recorded from before the first script runs."""
        page = Page(self)
        page.navigate(path, timeout=timeout)
        return page


class Page:
    """One tab; collects the errors it shows while it lives."""

    def __init__(self, browser):
        self.browser = browser
        self.errors = []  # human-readable problems: console errors, exceptions, requests
        self.console = []  # every console message, (type, text)
        self.requests = []  # every URL the page asked for
        self._loaded = False
        self._main_url = None
        target = browser.send("Target.createTarget", {"url": "about:blank"})
        self.target_id = target["targetId"]
        attached = browser.send("Target.attachToTarget", {"targetId": self.target_id, "flatten": True})
        self.session = attached["sessionId"]
        browser._sessions[self.session] = self
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        # No network at view time: anything that is not the page itself is reported (see
        # _on_event); offline mode also makes such a request fail rather than hang.
        self.send("Network.emulateNetworkConditions",
                  {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": browser.width, "height": browser.height, "deviceScaleFactor": 1, "mobile": False})

    def send(self, method, params=None, timeout=None):
        return self.browser.send(method, params, session=self.session, timeout=timeout)

    def _on_event(self, method, p):
        if method == "Runtime.consoleAPICalled":
            args = p.get("args", [])
            text = " ".join(_remote_text(a) for a in args)
            self.console.append((p.get("type"), text))
            if p.get("type") in ("error", "assert"):
                self.errors.append(f"console.{p.get('type')}: {text}")
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            exc = d.get("exception", {})
            text = exc.get("description") or d.get("text") or "exception"
            where = f" ({d.get('url', '')}:{d.get('lineNumber', 0) + 1})" if d.get("url") else ""
            self.errors.append(f"uncaught exception: {text.splitlines()[0] if text else text}{where}")
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") == "error":
                self.errors.append(f"log error ({e.get('source')}): {e.get('text')} {e.get('url', '')}".rstrip())
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            self.requests.append(url)
            if self._main_url is None and p.get("type") == "Document":
                self._main_url = url
            elif url != self._main_url and not url.startswith(("data:", "blob:", "about:")):
                self.errors.append(f"request to {url} (a report page must not fetch anything)")
        elif method == "Network.loadingFailed":
            if not p.get("canceled"):
                self.errors.append(f"loading failed: {p.get('errorText')} ({p.get('type', '')})")
        elif method == "Page.loadEventFired":
            self._loaded = True

    def navigate(self, path, timeout=None):
        timeout = timeout or self.browser.timeout
        url = path if "://" in str(path) or str(path).startswith(("about:", "data:")) else \
            pathlib.Path(path).resolve().as_uri()
        self._loaded = False
        self._main_url = None
        result = self.send("Page.navigate", {"url": url}, timeout=timeout)
        if result.get("errorText"):
            raise CDPError(f"navigate {url}: {result['errorText']}")
        deadline = time.monotonic() + timeout
        while not self._loaded:
            if time.monotonic() > deadline:
                raise CDPTimeout(f"{url}: no load event in {timeout:.0f} s")
            self.browser.pump(0.05)

    def evaluate(self, expression, timeout=None, await_promise=False):
        """The JSON value of a JavaScript expression (raises CDPError if it throws)."""
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": await_promise}, timeout=timeout)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            desc = d.get("exception", {}).get("description") or d.get("text")
            raise CDPError(f"evaluate failed: {desc}")
        return r.get("result", {}).get("value")

    def wait_ready(self, timeout=30.0):
        """Wait for window.tauvtaReady (True) or window.tauvtaError (raises CDPError with it)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.evaluate("({ready: window.tauvtaReady === true, "
                                  "error: window.tauvtaError ? String(window.tauvtaError) : null})",
                                  timeout=max(1.0, deadline - time.monotonic()))
            if state and state.get("error"):
                raise CDPError(f"page reported an error: {state['error']}")
            if state and state.get("ready"):
                # One more turn of the event loop: resize observers and requestAnimationFrame
                # callbacks the page queued while rendering run before anyone reads pixels.
                # (A hidden page may never run a frame: half a second at most.)
                self.evaluate("new Promise(r => { requestAnimationFrame(() => setTimeout(r, 0)); setTimeout(r, 500); })",
                              timeout=5, await_promise=True)
                return True
            if time.monotonic() > deadline:
                raise CDPTimeout(f"page not ready in {timeout:.0f} s")
            self.browser.pump(0.05)

    def screenshot(self, path, full_page=True, timeout=60.0):
        """Write a PNG of the viewport or (full_page) of the whole document."""
        params = {"format": "png"}
        if full_page:
            m = self.send("Page.getLayoutMetrics")
            size = m.get("cssContentSize") or m.get("contentSize")
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": max(1, round(size["width"])),
                              "height": max(1, round(size["height"])), "scale": 1}
        data = self.send("Page.captureScreenshot", params, timeout=timeout)["data"]
        pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(path).write_bytes(base64.b64decode(data))
        return path

    def close(self):
        try:
            self.browser.send("Target.closeTarget", {"targetId": self.target_id}, timeout=10)
        except CDPError:
            pass
        self.browser._sessions.pop(self.session, None)


def _sweep_profiles():
    """Remove the temporary profiles of Browser owners that died without cleaning up (SIGKILL):
    each profile's name carries its owner's pid."""
    tmp = pathlib.Path(tempfile.gettempdir())
    for d in tmp.glob("tauvta-chromium-*-*"):
        try:
            pid = int(d.name.split("-")[2])
        except (IndexError, ValueError):
            continue
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


def _libc_prctl():
    """libc's prctl (Linux), looked up before fork; None elsewhere."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _remote_text(obj):
    """Readable text of a Runtime.RemoteObject (a console.log argument)."""
    if "value" in obj:
        v = obj["value"]
        return v if isinstance(v, str) else json.dumps(v)
    return obj.get("description") or obj.get("unserializableValue") or obj.get("type", "")


if __name__ == "__main__":
    import sys

    print(chromium_version())
    with Browser() as b:
        print(b.version.get("product"))
        if len(sys.argv) > 1:
            pg = b.open(sys.argv[1])
            print(pg.evaluate("document.title"))
            print(pg.errors)
