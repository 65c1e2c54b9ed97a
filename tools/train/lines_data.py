"""Training data for the pitch-line model (`tools/train-line-model`): frames at 640x360 and a
line/not-line label at stride 2 (320x180), from two sources whose camera is known:

- real Bundesliga frames of `pitch-keypoints-dfl` (Roboflow export, CC BY 4.0): the image is
  un-stretched from its 640x640 export back to 16:9, and its camera is the homography fitted
  (DLT) to its visible labelled keypoints, mapped by landmark onto the 105x68 pitch (the same
  landmark table as `crates/sportz-eval/src/keypoints.rs`);
- `sportz synth` frames, whose `truth.jsonl` holds each frame's exact `image_from_pitch`.

The label of a pixel: the pitch model (every marking of `crates/sportz-vision/src/camera/
model.rs`) is projected through the frame's camera; a pixel within NEAR px of a projected marking
that is also brighter than both sides across (a permissive top-hat, so the label sits on the
painted line even where the keypoint camera is a few pixels off) is a line; a pixel farther than
FAR px from every marking is not; the rest is ignored. Boards, graphics, goal frames and crowd
are therefore negatives, and so are lines hidden by players.

Output: one `.npz` per source and split with `images` uint8 [N,360,640,3], `labels` uint8
[N,180,320] (0 no, 1 line, 255 ignore) and `names`. Idempotent: an existing file is reused.

  python tools/train/lines_data.py real --src ../shared/assets/datasets/pitch-keypoints-dfl \
      --split train --out /var/tmp/sportz-line-data/real-train.npz
  python tools/train/lines_data.py synth --dir /var/tmp/sportz-line-data/s300 --every 8 \
      --out /var/tmp/sportz-line-data/synth-300.npz
"""

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

W, H = 640, 360
NEAR, FAR = 4.0, 12.0
MIN_CONTRAST = 8.0

# pitch dimensions (crates/sportz-vision/src/pitch.rs)
L, WD = 105.0, 68.0
PA_HALF, PA_DEPTH, GA_HALF, GA_DEPTH, CIRCLE_R, SPOT = 20.16, 16.5, 9.16, 5.5, 9.15, 11.0
PA, PB, GA, GB, CR = 34 - PA_HALF, 34 + PA_HALF, 34 - GA_HALF, 34 + GA_HALF, CIRCLE_R
# where the penalty arc meets the penalty-box line: the export's keypoints 11, 12, 19 and 20
# (1-based) are labelled there, not at the goal-area width (their median residual drops from
# 6-9 px to 1 px on the train split)
ARC = math.sqrt(CIRCLE_R ** 2 - (PA_DEPTH - SPOT) ** 2)
AA, AB = 34 - ARC, 34 + ARC
# the 32 keypoints of the export, by landmark (crates/sportz-eval/src/keypoints.rs)
KEYPOINTS = [
    (0, 0), (0, PA), (0, GA), (0, GB), (0, PB), (0, 68), (5.5, GA), (5.5, GB), (11, 34),
    (16.5, PA), (16.5, AA), (16.5, AB), (16.5, PB), (52.5, 0), (52.5, 34 - CR), (52.5, 34 + CR),
    (52.5, 68), (88.5, PA), (88.5, AA), (88.5, AB), (88.5, PB), (94, 34), (99.5, GA), (99.5, GB),
    (105, 0), (105, PA), (105, GA), (105, GB), (105, PB), (105, 68), (52.5 - CR, 34),
    (52.5 + CR, 34),
]


def marking_points(step=0.05):
    """Points every `step` m along every marking of the 105x68 model."""
    segs = [((0, 0), (L, 0)), ((0, WD), (L, WD)), ((0, 0), (0, WD)), ((L, 0), (L, WD)),
            ((L / 2, 0), (L / 2, WD))]
    arcs = [((L / 2, 34), CIRCLE_R, 0, 2 * math.pi)]
    for goal, d in ((0.0, 1.0), (L, -1.0)):
        for depth, half in ((PA_DEPTH, PA_HALF), (GA_DEPTH, GA_HALF)):
            x = goal + d * depth
            segs += [((goal, 34 - half), (x, 34 - half)), ((x, 34 - half), (x, 34 + half)),
                     ((x, 34 + half), (goal, 34 + half))]
        a = math.acos((PA_DEPTH - SPOT) / CIRCLE_R)
        c = (goal + d * SPOT, 34)
        arcs.append((c, CIRCLE_R, -a, a) if d > 0 else (c, CIRCLE_R, math.pi - a, math.pi + a))
    pts = []
    for (x0, y0), (x1, y1) in segs:
        n = max(2, int(math.hypot(x1 - x0, y1 - y0) / step))
        t = np.linspace(0, 1, n)
        pts.append(np.stack([x0 + (x1 - x0) * t, y0 + (y1 - y0) * t], 1))
    for (cx, cy), r, a0, a1 in arcs:
        n = max(2, int(r * (a1 - a0) / step))
        t = np.linspace(a0, a1, n)
        pts.append(np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1))
    return np.concatenate(pts)


MARKS = marking_points()


def dlt(src, dst):
    """Homography mapping src (N,2) to dst (N,2), N >= 4, normalised DLT."""
    def norm(p):
        m = p.mean(0)
        s = math.sqrt(2) / max(np.sqrt(((p - m) ** 2).sum(1)).mean(), 1e-9)
        return np.array([[s, 0, -s * m[0]], [0, s, -s * m[1]], [0, 0, 1]])
    ts, td = norm(src), norm(dst)
    a = []
    for (x, y), (u, v) in zip(src, dst):
        x, y, _ = ts @ [x, y, 1]
        u, v, _ = td @ [u, v, 1]
        a.append([-x, -y, -1, 0, 0, 0, u * x, u * y, u])
        a.append([0, 0, 0, -x, -y, -1, v * x, v * y, v])
    _, _, vt = np.linalg.svd(np.asarray(a))
    h = np.linalg.inv(td) @ vt[-1].reshape(3, 3) @ ts
    return h / h[2, 2]


def near_distance(img_from_pitch):
    """Distance (px, capped) from every pixel to the projected pitch model, [H, W]."""
    p = np.c_[MARKS, np.ones(len(MARKS))] @ img_from_pitch.T
    ok = p[:, 2] > 1e-6
    uv = p[ok, :2] / p[ok, 2:3]
    inside = (uv[:, 0] >= 0) & (uv[:, 0] < W) & (uv[:, 1] >= 0) & (uv[:, 1] < H)
    uv = uv[inside].astype(np.int64)
    hit = torch.zeros(1, 1, H, W)
    hit[0, 0, uv[:, 1], uv[:, 0]] = 1.0
    # distance bands by repeated dilation (the labels only need "≤ NEAR" and "> FAR")
    near = F.max_pool2d(hit, 2 * int(NEAR) + 1, 1, int(NEAR))[0, 0].numpy() > 0
    far = F.max_pool2d(hit, 2 * int(FAR) + 1, 1, int(FAR))[0, 0].numpy() == 0
    return near, far


def tophat(img):
    """Pixels brighter by MIN_CONTRAST than both sides 3 px away (horizontally or vertically)."""
    y = img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114
    chroma = img.max(-1).astype(np.float32) - img.min(-1)
    out = np.zeros(y.shape, bool)
    for k in (2, 3, 4):
        pad = np.pad(y, k, mode="edge")
        h = y - np.maximum(pad[k:-k, :-2 * k], pad[k:-k, 2 * k:])
        v = y - np.maximum(pad[:-2 * k, k:-k], pad[2 * k:, k:-k])
        out |= (h >= MIN_CONTRAST) | (v >= MIN_CONTRAST)
    return out & (chroma <= 90)


def label(img, img_from_pitch):
    near, far = near_distance(img_from_pitch)
    full = np.full((H, W), 255, np.uint8)
    full[far] = 0
    full[near & tophat(img)] = 1
    # stride 2: a line if any of the 2x2 is a line, else ignored if any is ignored
    b = full.reshape(H // 2, 2, W // 2, 2).transpose(0, 2, 1, 3).reshape(H // 2, W // 2, 4)
    out = np.where((b == 1).any(-1), 1, np.where((b == 255).any(-1), 255, 0))
    return out.astype(np.uint8)


def read_image(path, w=W, h=H):
    cmd = ["ffmpeg", "-loglevel", "error", "-i", str(path), "-vf", f"scale={w}:{h}:flags=bilinear",
           "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    buf = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return np.frombuffer(buf, np.uint8).reshape(h, w, 3)


def real(args):
    root = Path(args.src) / args.split
    images, labels, names = [], [], []
    skipped = 0
    for img_path in sorted((root / "images").iterdir()):
        lab = root / "labels" / (img_path.stem + ".txt")
        if not lab.exists():
            skipped += 1
            continue
        v = lab.read_text().split()
        kp = np.asarray(v[5:5 + 96], np.float64).reshape(32, 3)
        vis = kp[:, 2] > 0
        if vis.sum() < 4:
            skipped += 1
            continue
        src = np.asarray(KEYPOINTS, np.float64)[vis]
        dst = kp[vis, :2] * [W, H]
        hm = dlt(src, dst)
        # a fit that does not reproduce its own keypoints is a bad label (collinear points…)
        p = np.c_[src, np.ones(len(src))] @ hm.T
        err = np.hypot(*(p[:, :2] / p[:, 2:3] - dst).T)
        if err.max() > 8.0:
            skipped += 1
            continue
        img = read_image(img_path)
        images.append(img)
        labels.append(label(img, hm))
        names.append(img_path.name)
    print(f"{args.split}: {len(images)} frames, {skipped} skipped (no label, <4 keypoints or a bad fit)",
          file=sys.stderr)
    return images, labels, names


def synth(args):
    d = Path(args.dir)
    meta = json.loads((d / "meta.json").read_text())
    sw, sh = meta["config"]["width"], meta["config"]["height"]
    truth = [json.loads(x) for x in (d / "truth.jsonl").read_text().splitlines() if x.strip()]
    scale = np.diag([W / sw, H / sh, 1.0])
    images, labels, names = [], [], []
    cmd = ["ffmpeg", "-loglevel", "error", "-i", str(d / "match.mp4"), "-vf", f"scale={W}:{H}",
           "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    n = W * H * 3
    for i, t in enumerate(truth):
        buf = proc.stdout.read(n)
        if len(buf) < n:
            break
        if i % args.every:
            continue
        img = np.frombuffer(buf, np.uint8).reshape(H, W, 3).copy()
        hm = scale @ np.asarray(t["camera"]["image_from_pitch"], np.float64)
        images.append(img)
        labels.append(label(img, hm))
        names.append(f"{d.name}#{i}")
    proc.stdout.close()
    proc.wait()
    print(f"{d}: {len(images)} frames", file=sys.stderr)
    return images, labels, names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("real")
    r.add_argument("--src", required=True)
    r.add_argument("--split", required=True)
    s = sub.add_parser("synth")
    s.add_argument("--dir", required=True)
    s.add_argument("--every", type=int, default=8)
    for p in (r, s):
        p.add_argument("--out", required=True)
    args = ap.parse_args()
    out = Path(args.out)
    if out.exists():
        print(f"{out}: exists, reused", file=sys.stderr)
        return
    images, labels, names = real(args) if args.cmd == "real" else synth(args)
    if not images:
        raise SystemExit(f"no frames for {out}")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, images=np.stack(images), labels=np.stack(labels), names=np.asarray(names))
    tmp.rename(out)
    lab = np.stack(labels)
    print(f"{out}: {len(images)} frames, {100 * (lab == 1).mean():.2f} % line, "
          f"{100 * (lab == 255).mean():.1f} % ignored", file=sys.stderr)


if __name__ == "__main__":
    main()
