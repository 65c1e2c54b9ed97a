"""Renders synthetic matches with `sportz synth` and stores letterboxed frames plus boxes.

One `seed-S.npz` per seed under --data (images uint8 [K,384,640,3] already letterboxed as the
Rust side does, boxes in model-input pixels). Seeds already done are skipped (idempotent).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESERVED_SEEDS, decode_video, frame_labels, letterbox, read_truth  # noqa: E402

# Five render variants, picked by seed % 5: (size, extra flags).
VARIANTS = [
    ("1280x720", []),
    ("1280x720", ["--noise"]),
    ("1280x720", ["--motion-blur", "--no-scoreboard"]),
    ("960x540", ["--noise", "--motion-blur"]),
    ("1920x1080", ["--no-scoreboard"]),
]


def variant(seed):
    return VARIANTS[seed % len(VARIANTS)]


def render(binary, seed, seconds, out_dir):
    size, flags = variant(seed)
    meta = out_dir / "meta.json"
    if meta.exists():
        return
    if out_dir.exists():
        shutil.rmtree(out_dir)
    cmd = [binary, "synth", "--seed", str(seed), "--seconds", str(seconds), "--size", size,
           "--out", str(out_dir), *flags]
    for attempt in range(30):
        if os.path.exists(binary):
            break
        time.sleep(10)  # the binary may be in the middle of a rebuild
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def one_seed(args):
    binary, seed, seconds, every, data = args
    if seed in RESERVED_SEEDS:
        raise SystemExit(f"seed {seed} is reserved for benchmarks and demos")
    target = data / f"seed-{seed}.npz"
    if target.exists():
        return seed, 0.0, "cached"
    t0 = time.time()
    video_dir = data / "videos" / f"seed-{seed}"
    render(binary, seed, seconds, video_dir)
    t_render = time.time() - t0
    meta = json.loads((video_dir / "meta.json").read_text())
    w, h = meta["config"]["width"], meta["config"]["height"]
    truth = read_truth(video_dir / "truth.jsonl")
    images, boxes, classes, ignore, frame_of, frame_numbers = [], [], [], [], [], []
    for i, frame in enumerate(decode_video(video_dir / "match.mp4", w, h)):
        if i % every != 0 or i >= len(truth):
            continue
        b, c, ig = frame_labels(truth[i], w, h)
        k = len(images)
        images.append(letterbox(frame))
        boxes.append(b)
        classes.append(c)
        ignore.append(ig)
        frame_of.append(np.full(len(c), k, np.int64))
        frame_numbers.append(i)
    tmp = data / f"seed-{seed}.tmp.npz"
    np.savez(tmp, images=np.stack(images), boxes=np.concatenate(boxes), classes=np.concatenate(classes),
             ignore=np.concatenate(ignore), frame=np.concatenate(frame_of),
             frame_numbers=np.asarray(frame_numbers), source_size=np.asarray([w, h]))
    os.replace(tmp, target)
    return seed, time.time() - t0, f"{len(images)} frames {w}x{h} (render {t_render:.0f}s)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="/var/tmp/sportz-train-bin/sportz")
    ap.add_argument("--data", type=Path, default=Path("/var/tmp/sportz-train-data"))
    ap.add_argument("--seeds", required=True, help="e.g. 100-139 or 900,901")
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--every", type=int, default=6, help="keep every n-th frame")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    seeds = []
    for part in a.seeds.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            seeds += list(range(int(lo), int(hi) + 1))
        else:
            seeds.append(int(part))
    a.data.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    jobs = [(a.binary, s, a.seconds, a.every, a.data) for s in seeds]
    with ProcessPoolExecutor(a.jobs) as pool:
        for seed, dt, what in pool.map(one_seed, jobs):
            print(f"seed {seed}: {what} in {dt:.0f}s", flush=True)
    print(f"data for {len(seeds)} seeds in {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
