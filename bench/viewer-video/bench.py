#!/usr/bin/env python3
"""What the annotated video for viewers costs (`--viewer-video auto|on`), end to end.

Starts `sportz --headless --viewer-video MODE` on a synthetic 1280x720 25 fps match, then measures
two phases of equal length: nobody watching, and N viewers reading the MJPEG stream
(`GET /matches/{id}/video`). Per phase: the server's CPU (all threads, from /proc), frames the
worker processed and dropped (its own metrics messages, from the session's recording), and
for the viewers the pictures and bytes per second they received. Stdlib only.

Usage: bench.py SPORTZ_BIN [--seconds 20] [--viewers 1] [--mode auto|on] [--file VIDEO]

`--file` plays a video file in real time (a live replay) instead of the synthetic match;
`--viewers 0` measures the analysis alone over two windows.
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from headless import Headless  # noqa: E402  (bench/headless.py)

TOKEN = "bench-viewer-video"
BOUNDARY = b"--sportzframe\r\n"


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


def metrics_now(base, match_id, session_id):
    """The worker's newest metrics message so far (frames processed and dropped)."""
    req = urllib.request.Request(f"{base}/matches/{match_id}/sessions/{session_id}/export?format=jsonl")
    last = None
    with urllib.request.urlopen(req, timeout=30) as r:
        for line in r:
            m = json.loads(line)
            if m.get("type") == "metrics":
                last = m["data"]
    return last


def viewer(port, match_id, stop, counts, i):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", f"/matches/{match_id}/video")
    r = conn.getresponse()
    if r.status != 200:
        counts[i] = ("error", r.status, r.read()[:300])
        return
    counts[i] = [0, 0]  # pictures, bytes so far (read live by the main thread)
    tail = b""
    while not stop.is_set():
        chunk = r.read1(1 << 16)
        if not chunk:
            break
        data = tail + chunk
        counts[i] = [counts[i][0] + data.count(BOUNDARY), counts[i][1] + len(chunk)]
        tail = data[-len(BOUNDARY):]
    conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--viewers", type=int, default=1)
    ap.add_argument("--mode", choices=["auto", "on"], default="auto")
    ap.add_argument("--file", help="a video file played in real time instead of the synthetic match")
    a = ap.parse_args()
    with Headless(a.bin, TOKEN, ["--viewer-video", a.mode], prefix="sportz-bench-video-") as srv:
        port, base = srv.port, srv.base
        source = ({"type": "file", "value": os.path.abspath(a.file)} if a.file
                  else {"type": "synthetic", "value": 77})
        m, s = srv.start_match("Bench", "Video", source)
        sid = s["currentSessionId"]
        time.sleep(8)  # warm up: model loaded, camera found
        rows = []
        for phase, n in (("no viewer", 0), (f"{a.viewers} viewer(s)", a.viewers)):
            stop, counts = threading.Event(), [None] * n
            threads = [threading.Thread(target=viewer, args=(port, m["id"], stop, counts, i)) for i in range(n)]
            for t in threads:
                t.start()
            time.sleep(1.5)  # let the stream start before measuring
            live = lambda: [list(c) if isinstance(c, list) else [0, 0] for c in counts]
            m0, c0, t0, v0 = metrics_now(base, m["id"], sid), cpu_seconds(srv.proc.pid), time.time(), live()
            time.sleep(a.seconds)
            m1, c1, t1, v1 = metrics_now(base, m["id"], sid), cpu_seconds(srv.proc.pid), time.time(), live()
            stop.set()
            for t in threads:
                t.join(timeout=15)
            dt = t1 - t0
            frames = m1["frames_processed"] - m0["frames_processed"]
            dropped = m1["dropped_frames"] - m0["dropped_frames"]
            pics = sum(b[0] - a0[0] for a0, b in zip(v0, v1))
            nbytes = sum(b[1] - a0[1] for a0, b in zip(v0, v1))
            errors = [c for c in counts if isinstance(c, tuple)]
            if errors:
                print(f"viewer errors: {errors}", file=sys.stderr)
            rows.append((phase, (c1 - c0) / dt * 100, frames / dt, dropped, m1["detect_ms"], m1["latency_ms"],
                         pics / dt / max(n, 1) if n else 0.0, nbytes / dt / 1e6 / max(n, 1) if n else 0.0,
                         (c1 - c0) / max(frames, 1) * 1000))
        source = f"file {a.file}" if a.file else "synthetic 1280x720 25 fps"
        print(f"sportz --headless --viewer-video {a.mode}, {source}, {a.seconds:.0f} s per phase")
        print(f"{'phase':<14}{'server CPU %':>13}{'CPU ms/frame':>13}{'analysed fps':>13}{'dropped':>8}"
              f"{'detect ms':>10}{'latency ms':>11}{'pictures/s':>11}{'MB/s':>7}  (per viewer)")
        for p, cpu, fps, dropped, det, lat, pps, mbs, msf in rows:
            print(f"{p:<14}{cpu:>13.0f}{msf:>13.1f}{fps:>13.1f}{dropped:>8}{det:>10.1f}{lat:>11.1f}{pps:>11.1f}{mbs:>7.2f}")
        base_ms = rows[0][8]
        print(f"cost of the video: {rows[1][8] - base_ms:+.1f} ms of CPU per analysed frame")


if __name__ == "__main__":
    main()
