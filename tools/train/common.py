"""Shared pieces: the class list, the Rust-identical letterbox, and ground-truth parsing.

The letterbox here reproduces `sportz_vision::detect::preprocess` for the Ultralytics family
(centred letterbox, pad 114, RGB, /255, bilinear with pixel centres aligned as OpenCV's
INTER_LINEAR), so training, evaluation and the Rust pipeline see the same input tensor.
"""

import json
import math

import numpy as np

# Class order of the exported model (its `names` metadata). `object_class_for` in
# crates/sportz-vision/src/detect/names.rs maps each of these to a contract class.
NAMES = ["player", "goalkeeper", "referee", "ball"]
BALL = 3
ROLE_TO_CLASS = {"player": 0, "goalkeeper": 1, "referee": 2}

# Model input, width x height. 1280x720 (and every 16:9 source) fills 640x360 with 12 rows of
# pad above and below. `SPORTZ_DET_INPUT=960x544` (both multiples of 16) makes every script here
# (data, training, export, evaluation) work at another input size; the network is fully
# convolutional, so weights carry over between sizes.


def _input_size():
    import os

    spec = os.environ.get("SPORTZ_DET_INPUT", "640x384")
    try:
        w, h = (int(v) for v in spec.lower().split("x"))
    except ValueError:
        raise SystemExit(f"SPORTZ_DET_INPUT={spec!r}: expected WIDTHxHEIGHT, e.g. 960x544") from None
    if w <= 0 or h <= 0 or w % 16 or h % 16:
        raise SystemExit(f"SPORTZ_DET_INPUT={spec!r}: width and height must be positive multiples of 16")
    return w, h


INPUT_W, INPUT_H = _input_size()
STRIDE = 4

# Objects seen less than this are "ignore" regions: neither positives nor negatives.
MIN_VISIBLE_FRACTION = 0.35
MIN_BALL_PX = 6

TRAIN_SEEDS = list(range(100, 200))
HELDOUT_SEEDS = [900, 901, 902, 903, 904]
RESERVED_SEEDS = {1, 7, 42, 4242}


def rust_round(x):
    """Rust's f64::round (half away from zero) for non-negative values."""
    return math.floor(x + 0.5)


def letterbox_params(src_w, src_h, in_w=INPUT_W, in_h=INPUT_H):
    """(scale_x, scale_y, pad_x, pad_y), as InputTransform::new for a centred letterbox."""
    sw, sh = float(max(src_w, 1)), float(max(src_h, 1))
    r = min(in_w / sw, in_h / sh)
    nw, nh = float(rust_round(sw * r)), float(rust_round(sh * r))
    px, py = math.floor((in_w - nw) / 2.0), math.floor((in_h - nh) / 2.0)
    return nw / sw, nh / sh, float(px), float(py)


def _taps(n_out_start, n_out_end, pad, scale, max_i):
    d = np.arange(n_out_start, n_out_end, dtype=np.float64)
    s = np.maximum((d + 0.5 - pad) / scale - 0.5, 0.0)
    i0 = np.minimum(np.floor(s).astype(np.int64), max_i)
    i1 = np.minimum(i0 + 1, max_i)
    f = np.clip(s - i0, 0.0, 1.0)
    return i0, i1, f


def letterbox(img, in_w=INPUT_W, in_h=INPUT_H, as_uint8=True):
    """RGB uint8 HxWx3 → letterboxed in_h x in_w x 3 (uint8 rounded, or float32 0..255)."""
    sh, sw = img.shape[:2]
    scale_x, scale_y, px, py = letterbox_params(sw, sh, in_w, in_h)
    out = np.full((in_h, in_w, 3), 114.0, dtype=np.float32)
    x_end = min(rust_round(sw * scale_x + px), in_w)
    y_end = min(rust_round(sh * scale_y + py), in_h)
    xs, ys = int(px), int(py)
    x0, x1, fx = _taps(xs, x_end, px, scale_x, sw - 1)
    y0, y1, fy = _taps(ys, y_end, py, scale_y, sh - 1)
    src = img.astype(np.float64)
    fx = fx[None, :, None]
    top = src[y0][:, x0] * (1 - fx) + src[y0][:, x1] * fx
    bot = src[y1][:, x0] * (1 - fx) + src[y1][:, x1] * fx
    fy = fy[:, None, None]
    out[ys:y_end, xs:x_end] = (top * (1 - fy) + bot * fy).astype(np.float32)
    if as_uint8:
        return np.clip(np.floor(out + 0.5), 0, 255).astype(np.uint8)
    return out


def _reletterbox_one(args):
    img, (cx0, cy0, cw, ch), (in_w, in_h) = args
    return letterbox(np.ascontiguousarray(img[cy0:cy0 + ch, cx0:cx0 + cw]), in_w, in_h)


def reletterbox(name, d, imgs, boxes, in_w, in_h):
    """Frames stored letterboxed for another model input (e.g. a 640x360 source at 640x384) →
    the picture inside the pad, letterboxed again to this input exactly as the Rust side would
    letterbox the source (lossless where the stored scale is 1, as for native-size sources)."""
    if "source_size" not in d:
        raise SystemExit(f"{name}: frames are {imgs.shape[2]}x{imgs.shape[1]}, the model input is "
                         f"{in_w}x{in_h}, and there is no source_size to re-letterbox from")
    sw, sh = (int(v) for v in d["source_size"])
    sx, sy, px, py = letterbox_params(sw, sh, imgs.shape[2], imgs.shape[1])
    cw, ch = int(round(sw * sx)), int(round(sh * sy))
    tx, ty, qx, qy = letterbox_params(cw, ch, in_w, in_h)
    import os
    from multiprocessing import Pool

    with Pool(min(os.cpu_count() or 1, 16)) as pool:
        out = np.stack(pool.map(_reletterbox_one, [(im, (int(px), int(py), cw, ch), (in_w, in_h)) for im in imgs], chunksize=8))
    b = (boxes - np.array([px, py, px, py], np.float32)) * np.array([tx, ty, tx, ty], np.float32)
    print(f"  {name}: re-letterboxed {len(imgs)} frames {imgs.shape[2]}x{imgs.shape[1]} → {in_w}x{in_h}",
          flush=True)
    return out, b + np.array([qx, qy, qx, qy], np.float32)


def frame_labels(truth, src_w, src_h, in_w=INPUT_W, in_h=INPUT_H):
    """Boxes in model-input pixels from one truth.jsonl record.

    Returns (boxes [K,4] x1y1x2y2 float32, classes [K] int64, ignore [K] bool).
    """
    scale_x, scale_y, px, py = letterbox_params(src_w, src_h, in_w, in_h)
    boxes, classes, ignore = [], [], []

    def add(b, c, ign):
        x1, y1, x2, y2 = b
        boxes.append([x1 * scale_x + px, y1 * scale_y + py, x2 * scale_x + px, y2 * scale_y + py])
        classes.append(c)
        ignore.append(ign)

    for o in truth["objects"]:
        b = o.get("bbox")
        if b is None or o["visibility"] == "off_screen":
            continue
        if b[2] - b[0] < 1 or b[3] - b[1] < 1:
            continue
        seen = o["visibility"] != "occluded" and o["visible_fraction"] >= MIN_VISIBLE_FRACTION
        add(b, ROLE_TO_CLASS[o["role"]], not seen)
    ball = truth["ball"]
    if ball.get("bbox") is not None:
        b = ball["bbox"]
        if b[2] - b[0] >= 1 and b[3] - b[1] >= 1:
            seen = bool(ball["visible"]) and ball["visible_px"] >= MIN_BALL_PX
            add(b, BALL, not seen)
    if not boxes:
        return (np.zeros((0, 4), np.float32), np.zeros((0,), np.int64), np.zeros((0,), bool))
    return (np.asarray(boxes, np.float32), np.asarray(classes, np.int64), np.asarray(ignore, bool))


def read_truth(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def decode_video(path, width, height):
    """Yields RGB uint8 frames from a video via ffmpeg."""
    import subprocess

    cmd = ["ffmpeg", "-loglevel", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    n = width * height * 3
    try:
        while True:
            buf = proc.stdout.read(n)
            if len(buf) < n:
                break
            yield np.frombuffer(buf, np.uint8).reshape(height, width, 3)
    finally:
        proc.stdout.close()
        proc.wait()
