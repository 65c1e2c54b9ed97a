#!/usr/bin/env python3
"""The per-frame camera of a live session against `sportz track` on the same file.

Plays VIDEO as a live match through `sportz --headless` (a file source played in real time: the
live model, camera searches beside the frame loop), waits for the end, exports the recorded
session (`sportz export --format jsonl`), runs `sportz track VIDEO` offline, and compares the
two runs' `frame.data.camera` frame by frame: frames with a camera in each, and over the frames
both have one, the median distance between where the two cameras put a grid of image points
(the lower 70 % of the picture) on the pitch, and the frames where that median exceeds 1 m and
3 m. No truth is needed: the offline run is the reference. Python 3 stdlib only.

Usage: compare.py SPORTZ_BIN VIDEO [--runs N] [--keep DIR]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from headless import Headless  # noqa: E402  (bench/headless.py)

TOKEN = "bench-live-camera-token"


def cameras(path):
    """frame number → (3×3 image→pitch, width, height) or None, from a JSONL of contract messages."""
    out = {}
    with open(path) as f:
        for line in f:
            m = json.loads(line)
            if m.get("type") != "frame":
                continue
            d = m["data"]
            c = d.get("camera")
            h = c["image_to_pitch"] if c else None
            out[d["frame_number"]] = (h, d["width"], d["height"]) if h else None
    return out


def apply(h, x, y):
    w = h[6] * x + h[7] * y + h[8]
    return ((h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w)


def difference_m(a, b):
    """Median distance (m) between where cameras a and b put a 17×9 grid of image points."""
    (ha, width, height), (hb, _, _) = a, b
    d = []
    for j in range(9):
        y = height * (0.3 + 0.7 * j / 8)
        for i in range(17):
            x = width * i / 16
            (xa, ya), (xb, yb) = apply(ha, x, y), apply(hb, x, y)
            d.append(((xa - xb) ** 2 + (ya - yb) ** 2) ** 0.5)
    return statistics.median(d)


def live_run(bin_, video, out):
    """Plays `video` as a live match to its end and exports the recorded session to `out`."""
    with Headless(bin_, TOKEN, prefix="sportz-live-camera-") as srv:
        source = {"type": "file", "value": os.path.abspath(video)}
        started = time.time()
        m, status = srv.start_match("Live", "Camera", source)
        while time.time() - started < 3600 and status.get("status") == "processing":
            time.sleep(0.5)
            status = srv.api("GET", f"/matches/{m['id']}")["data"]
        print(f"live session {status.get('status')} after {time.time() - started:.1f} s", file=sys.stderr)
    subprocess.run([bin_, "export", "--match", m["id"], "--format", "jsonl", "--out", out,
                    "--data-dir", srv.data], check=True, env=srv.env, stdout=subprocess.DEVNULL)
    shutil.rmtree(srv.data, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("video")
    ap.add_argument("--runs", type=int, default=2, help="live runs (they differ: searches land when they land)")
    ap.add_argument("--keep", help="write offline.jsonl and live-N.jsonl here")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="sportz-live-camera-runs-")
    os.makedirs(work, exist_ok=True)
    offline = os.path.join(work, "offline.jsonl")
    subprocess.run([a.bin, "track", a.video, "--out", offline], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ref = cameras(offline)
    print(f"{'run':<10}{'frames':>8}{'camera':>8}{'both':>6}{'median m':>10}{'> 1 m':>7}{'> 3 m':>7}")
    print(f"{'offline':<10}{len(ref):>8}{sum(v is not None for v in ref.values()):>8}")
    for r in range(a.runs):
        path = os.path.join(work, f"live-{r + 1}.jsonl")
        live_run(a.bin, a.video, path)
        got = cameras(path)
        diffs = [difference_m(ref[n], got[n]) for n in sorted(got) if got[n] and ref.get(n)]
        med = statistics.median(diffs) if diffs else float("nan")
        print(f"{'live ' + str(r + 1):<10}{len(got):>8}{sum(v is not None for v in got.values()):>8}"
              f"{len(diffs):>6}{med:>10.2f}{sum(d > 1 for d in diffs):>7}{sum(d > 3 for d in diffs):>7}")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
