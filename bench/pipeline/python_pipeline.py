"""The Python reference for the pipeline benchmark (issue 20): the pipeline a user would
assemble from the usual libraries — OpenCV decode, onnxruntime, supervision's ByteTrack — on
the same clip and model as `sportz track`.

    python python_pipeline.py MODEL CLIP            # decode → letterbox → run → decode → NMS → ByteTrack
    python python_pipeline.py MODEL CLIP --bare     # session.run alone on one prepared input

Prints one `result key=value …` line (frames, seconds, fps). Supports the YOLOX raw-grid layout
([1, N, 5+nc], strides 8/16/32; e.g. yolox_nano) and the YOLOv8 layout ([1, 4+nc, N]; e.g. the
built-in sportz-det), with onnxruntime's default session options (intra-op threads = cores).
"""

import argparse
import time

import cv2
import numpy as np
import onnxruntime as ort
import supervision as sv


def letterbox(frame_bgr, w, h):
    """Scale to fit, centred on grey 114, RGB, /255 for v8 (raw 0..255 BGR for YOLOX)."""
    fh, fw = frame_bgr.shape[:2]
    r = min(w / fw, h / fh)
    nw, nh = int(round(fw * r)), int(round(fh * r))
    resized = cv2.resize(frame_bgr, (nw, nh), interpolation=cv2.INTER_LINEAR)
    canvas = np.full((h, w, 3), 114, dtype=np.uint8)
    top, left = (h - nh) // 2, (w - nw) // 2
    canvas[top:top + nh, left:left + nw] = resized
    return canvas, r, left, top


class Model:
    def __init__(self, path):
        self.session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        inp = self.session.get_inputs()[0]
        self.name = inp.name
        self.h, self.w = int(inp.shape[2]), int(inp.shape[3])
        out = self.session.get_outputs()[0].shape
        self.yolox = out[2] is not None and isinstance(out[2], int) and out[2] >= 6 and (
            isinstance(out[1], int) and out[1] > out[2])
        if self.yolox:
            grids, strides = [], []
            for s in (8, 16, 32):
                gh, gw = self.h // s, self.w // s
                ys, xs = np.meshgrid(np.arange(gh), np.arange(gw), indexing="ij")
                grids.append(np.stack([xs, ys], -1).reshape(-1, 2))
                strides.append(np.full((gh * gw, 1), s))
            self.grid = np.concatenate(grids).astype(np.float32)
            self.stride = np.concatenate(strides).astype(np.float32)

    def prepare(self, frame_bgr):
        canvas, r, left, top = letterbox(frame_bgr, self.w, self.h)
        if self.yolox:
            x = canvas.astype(np.float32)  # YOLOX: BGR, 0..255
        else:
            x = cv2.cvtColor(canvas, cv2.COLOR_BGR2RGB).astype(np.float32) / 255.0
        return np.ascontiguousarray(x.transpose(2, 0, 1)[None]), (r, left, top)

    def run(self, x):
        return self.session.run(None, {self.name: x})[0]

    def decode(self, out, transform, conf=0.25, iou=0.45):
        r, left, top = transform
        if self.yolox:
            p = out[0]
            xy = (p[:, :2] + self.grid) * self.stride
            wh = np.exp(p[:, 2:4]) * self.stride
            scores_all = p[:, 5:] * p[:, 4:5]
        else:
            p = out[0].T
            xy, wh = p[:, :2], p[:, 2:4]
            scores_all = p[:, 4:]
        cls = scores_all.argmax(1)
        scores = scores_all[np.arange(len(cls)), cls]
        keep = scores >= conf
        xy, wh, scores, cls = xy[keep], wh[keep], scores[keep], cls[keep]
        x1y1 = xy - wh / 2
        boxes = np.concatenate([x1y1, wh], 1)
        idx = cv2.dnn.NMSBoxesBatched(boxes.tolist(), scores.tolist(), cls.tolist(), conf, iou) if len(scores) else []
        idx = np.array(idx, dtype=int).reshape(-1)
        b = boxes[idx]
        xyxy = np.stack([(b[:, 0] - left) / r, (b[:, 1] - top) / r,
                         (b[:, 0] + b[:, 2] - left) / r, (b[:, 1] + b[:, 3] - top) / r], 1) if len(idx) else np.zeros((0, 4))
        return sv.Detections(xyxy=xyxy.astype(np.float32), confidence=scores[idx].astype(np.float32),
                             class_id=cls[idx].astype(int))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("clip")
    ap.add_argument("--bare", action="store_true", help="session.run alone, on one prepared frame")
    ap.add_argument("--frames", type=int, default=0, help="stop after N frames (0: the whole clip)")
    a = ap.parse_args()
    model = Model(a.model)
    cap = cv2.VideoCapture(a.clip)
    ok, first = cap.read()
    if not ok:
        raise SystemExit(f"cannot read {a.clip}")
    x, _ = model.prepare(first)
    for _ in range(3):  # warm-up, as sportz's detector does at load
        model.run(x)
    if a.bare:
        n = a.frames or int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) or 300
        t0 = time.perf_counter()
        for _ in range(n):
            model.run(x)
        dt = time.perf_counter() - t0
        print(f"result label=python-bare frames={n} seconds={dt:.2f} fps={n / dt:.1f}")
        return
    cap.release()
    cap = cv2.VideoCapture(a.clip)
    tracker = sv.ByteTrack()
    n, tracked = 0, 0
    t0 = time.perf_counter()
    while True:
        ok, frame = cap.read()
        if not ok or (a.frames and n >= a.frames):
            break
        x, transform = model.prepare(frame)
        dets = model.decode(model.run(x), transform)
        tracks = tracker.update_with_detections(dets)
        tracked += len(tracks)
        n += 1
    dt = time.perf_counter() - t0
    print(f"result label=python-pipeline frames={n} seconds={dt:.2f} fps={n / dt:.1f} tracked_per_frame={tracked / max(n, 1):.1f}")


if __name__ == "__main__":
    main()
