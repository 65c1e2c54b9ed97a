"""`sportz --headless` for the bench scripts: started on a free port with a fresh data dir and an
operator token, the REST calls they make, a match started on a video source. Stdlib only."""

import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Headless:
    """`sportz --headless --no-demo [EXTRA…]`, ready once `/health` answers; stopped on exit.
    `data` is its data dir (the server's log is `data/log`), `env` the environment it ran with."""

    def __init__(self, bin_, token, extra=(), prefix="sportz-bench-"):
        self.bin, self.token = bin_, token
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.data = tempfile.mkdtemp(prefix=prefix)
        self.env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
        self.env.update(SPORTZ_OPERATOR_TOKEN=token, SPORTZ_LOG="warn")
        self.extra = list(extra)
        self.proc = None

    def __enter__(self):
        with open(f"{self.data}/log", "w") as log:
            self.proc = subprocess.Popen(
                [self.bin, "--headless", "--no-demo", *self.extra, "--bind", f"127.0.0.1:{self.port}",
                 "--data-dir", self.data], env=self.env, stdout=subprocess.DEVNULL, stderr=log)
        for _ in range(600):
            try:
                urllib.request.urlopen(self.base + "/health", timeout=1)
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"sportz --headless did not answer /health in 60 s (log: {self.data}/log)")

    def __exit__(self, *_):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def api(self, method, path, body=None):
        req = urllib.request.Request(self.base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"authorization": f"Bearer {self.token}",
                                              "content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"null")

    def start_match(self, home, away, source):
        """A match on `source` (a contract `videoSource`), started: the match and its status once
        it is processing (`currentSessionId` names the session)."""
        m = self.api("POST", "/matches", {"homeTeam": home, "awayTeam": away, "videoSource": source})["data"]
        self.api("POST", f"/matches/{m['id']}/start")
        for _ in range(300):
            s = self.api("GET", f"/matches/{m['id']}")["data"]
            if s.get("status") == "processing":
                break
            time.sleep(0.1)
        return m, s
