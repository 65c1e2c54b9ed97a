"""Converts the Roboflow YOLO exports of real football frames into the same `.npz` layout as
gen_data.py (frames letterboxed to the model input exactly as the Rust side does, boxes in
model-input pixels), so train.py and evaluate.py read real and synthetic frames alike.

The exports are stretched to a square (players-dfl 1280x1280 from 1920x1080, players-mls
640x640 from a 16:9 frame). sportz feeds real 16:9 frames, so every image is first
un-stretched back to 16:9 (ffmpeg, bilinear), then letterboxed with `common.letterbox`.
YOLO labels are normalised, so a per-axis stretch leaves them unchanged: a box maps into the
16:9 frame by the frame's size. Polygons (players-mls) become their min/max box.

Classes are mapped by name from the export's data.yaml (`football` is the ball).
One output file per (dataset, split): `real-<name>-<split>.npz`. Files already written are
reused (idempotent). The data is read in place and never copied into the repository.

  python tools/train/real_data.py --src ../shared/assets/datasets/players-dfl --split train \
      --size 1280x720 --out /var/tmp/sportz-train-data/real/real-dfl-train.npz
"""

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import NAMES, letterbox, letterbox_params  # noqa: E402

# data.yaml name → our class index (NAMES = player, goalkeeper, referee, ball)
NAME_MAP = {"player": 0, "goalkeeper": 1, "referee": 2, "football": 3, "ball": 3}
IMAGE_EXT = (".jpg", ".jpeg", ".png")


def yaml_names(path):
    """The `names:` list of a Roboflow data.yaml (block or inline list; no PyYAML needed)."""
    lines = Path(path).read_text().splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        if not s.startswith("names:"):
            continue
        rest = s[len("names:"):].strip()
        if rest.startswith("["):
            return [n.strip().strip("'\"") for n in rest.strip("[]").split(",") if n.strip()]
        out = []
        for nxt in lines[i + 1:]:
            t = nxt.strip()
            if not t.startswith("- "):
                break
            out.append(t[2:].strip().strip("'\""))
        return out
    raise SystemExit(f"no names in {path}")


def read_image(path, w, h):
    """RGB uint8 [h, w, 3], resized (un-stretched) by ffmpeg with bilinear filtering."""
    cmd = ["ffmpeg", "-loglevel", "error", "-i", str(path), "-vf", f"scale={w}:{h}:flags=bilinear",
           "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    buf = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return np.frombuffer(buf, np.uint8).reshape(h, w, 3)


def read_labels(path, cmap):
    """[(class, x1, y1, x2, y2)] normalised; boxes (5 fields) or polygons (odd count > 5)."""
    out = []
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        v = line.split()
        if len(v) < 5:
            continue
        c = cmap.get(int(v[0]))
        if c is None:
            continue
        f = np.asarray(v[1:], np.float64)
        if len(f) == 4:
            cx, cy, bw, bh = f
            x1, y1, x2, y2 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
        else:
            xs, ys = f[0::2], f[1::2]
            x1, y1, x2, y2 = xs.min(), ys.min(), xs.max(), ys.max()
        out.append((c, max(x1, 0.0), max(y1, 0.0), min(x2, 1.0), min(y2, 1.0)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", type=Path, required=True, help="a Roboflow YOLO export (with data.yaml)")
    ap.add_argument("--split", default="train", choices=["train", "valid"])
    ap.add_argument("--size", default="1280x720", help="the 16:9 size to un-stretch to")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if a.out.exists():
        print(f"{a.out}: cached")
        return
    names = yaml_names(a.src / "data.yaml")
    cmap = {i: NAME_MAP[n] for i, n in enumerate(names) if n in NAME_MAP}
    w, h = (int(v) for v in a.size.split("x"))
    sx, sy, px, py = letterbox_params(w, h)
    imgs = sorted(p for p in (a.src / a.split / "images").iterdir() if p.suffix.lower() in IMAGE_EXT)
    t0 = time.time()

    def one(p):
        return letterbox(read_image(p, w, h)), read_labels(a.src / a.split / "labels" / (p.stem + ".txt"), cmap)

    with ThreadPoolExecutor(a.jobs) as pool:
        done = list(pool.map(one, imgs))
    images, boxes, classes, frame = [], [], [], []
    for k, (img, labs) in enumerate(done):
        images.append(img)
        for c, x1, y1, x2, y2 in labs:
            b = [x1 * w * sx + px, y1 * h * sy + py, x2 * w * sx + px, y2 * h * sy + py]
            if b[2] - b[0] < 0.5 or b[3] - b[1] < 0.5:
                continue
            boxes.append(b)
            classes.append(c)
            frame.append(k)
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    classes = np.asarray(classes, np.int64)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = a.out.with_suffix(".tmp.npz")
    np.savez(tmp, images=np.stack(images), boxes=boxes, classes=classes,
             ignore=np.zeros(len(classes), bool), frame=np.asarray(frame, np.int64),
             frame_numbers=np.arange(len(images)), source_size=np.asarray([w, h]),
             files=np.asarray([p.name for p in imgs]))
    os.replace(tmp, a.out)
    counts = {NAMES[c]: int((classes == c).sum()) for c in range(len(NAMES))}
    print(f"{a.out}: {len(images)} frames, boxes {counts}, in {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
