"""Held-out evaluation of the exported ONNX in onnxruntime, decoded as the Rust side decodes a
YOLOv8-layout model (best class per cell, confidence threshold, per-class NMS at IoU 0.45,
at most 300 detections).

Reports AP50 (COCO 101-point) per class and for all people together, recall and precision at
the Rust default confidence 0.25, and for the ball also recall within 4 input pixels of the
true centre.
"""

import argparse
import glob
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BALL, NAMES, reletterbox  # noqa: E402

RUST_CONF, RUST_IOU, RUST_MAX = 0.25, 0.45, 300


def iou_matrix(a, b):
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    aa = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    ab = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(aa[:, None] + ab[None, :] - inter, 1e-9)


def decode(out, conf):
    """[1, 4+nc, N] → (boxes xyxy, scores, classes) as sportz-vision's Layout::YoloV8 + NMS."""
    o = out[0]
    scores_all = o[4:]
    cls = scores_all.argmax(0)
    score = scores_all.max(0)
    keep = (score >= conf) & np.isfinite(score)
    cx, cy, w, h = o[0][keep], o[1][keep], o[2][keep], o[3][keep]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    score, cls = score[keep], cls[keep]
    valid = (boxes[:, 2] > boxes[:, 0]) & (boxes[:, 3] > boxes[:, 1])
    boxes, score, cls = boxes[valid], score[valid], cls[valid]
    order = np.argsort(-score, kind="stable")
    boxes, score, cls = boxes[order], score[order], cls[order]
    kept = []
    for c in np.unique(cls):
        idx = np.nonzero(cls == c)[0]
        b = boxes[idx]
        alive = np.ones(len(idx), bool)
        ious = iou_matrix(b, b)
        for j in range(len(idx)):
            if not alive[j]:
                continue
            kept.append(idx[j])
            alive[j + 1:] &= ious[j, j + 1:] <= RUST_IOU
    kept = sorted(kept, key=lambda k: -score[k])[:RUST_MAX]
    return boxes[kept], score[kept], cls[kept]


def ap101(tp, conf, n_gt):
    if n_gt == 0:
        return float("nan")
    order = np.argsort(-np.asarray(conf), kind="stable")
    tp = np.asarray(tp, float)[order]
    ctp, cfp = np.cumsum(tp), np.cumsum(1 - tp)
    rec = ctp / n_gt
    prec = ctp / np.maximum(ctp + cfp, 1e-9)
    prec = np.maximum.accumulate(prec[::-1])[::-1] if len(prec) else prec
    ap = 0.0
    for r in np.linspace(0, 1, 101):
        i = np.searchsorted(rec, r, side="left")
        ap += prec[i] if i < len(prec) else 0.0
    return ap / 101


def match(det_b, det_s, gt_b, gt_ig):
    """Greedy matching at IoU 0.5; returns (tp flags, conf) for detections not on ignored truth,
    and the indices of matched truth boxes."""
    tps, confs, matched = [], [], set()
    ious = iou_matrix(det_b, gt_b)
    for j in np.argsort(-det_s, kind="stable"):
        best, best_iou = -1, 0.5
        for g in range(len(gt_b)):
            if g in matched or gt_ig[g]:
                continue
            if ious[j, g] >= best_iou:
                best, best_iou = g, ious[j, g]
        if best >= 0:
            matched.add(best)
            tps.append(1)
            confs.append(det_s[j])
        elif len(gt_b) and np.any(gt_ig & (ious[j] >= 0.5)):
            continue  # on an ignored (barely visible) object: neither right nor wrong
        else:
            tps.append(0)
            confs.append(det_s[j])
    return tps, confs, matched


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="models/sportz-det.onnx")
    ap.add_argument("--data", default="/var/tmp/sportz-train-data/heldout",
                    help="a folder of seed-*.npz / real-*.npz (gen_data.py, real_data.py) or one .npz")
    ap.add_argument("--json", default=None, help="also write the metrics here")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    so = ort.SessionOptions()
    so.intra_op_num_threads = a.threads
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    if Path(a.data).is_file():
        files = [a.data]
    else:
        files = sorted(f for f in glob.glob(str(Path(a.data) / "seed-*.npz")) + glob.glob(str(Path(a.data) / "real-*.npz"))
                       if ".tmp." not in f)
    groups = {"player": [0], "goalkeeper": [1], "referee": [2], "ball": [BALL], "people (any role)": [0, 1, 2]}
    acc = {g: {"tp": [], "conf": [], "ngt": 0, "hit25": 0, "det25": 0, "tp25": 0} for g in groups}
    ball_near, ball_gt, frames, t_inf = 0, 0, 0, 0.0
    in_h, in_w = sess.get_inputs()[0].shape[2:]
    for f in files:
        d = np.load(f)
        images, all_boxes = d["images"], d["boxes"]
        if images.shape[1:3] != (in_h, in_w):
            # frames stored for another input size: letterboxed again for this model
            images, all_boxes = reletterbox(f, d, images, all_boxes, in_w, in_h)
        for k in range(len(images)):
            x = images[k].astype(np.float32).transpose(2, 0, 1)[None] / 255.0
            t0 = time.time()
            out = sess.run(None, {"images": x})[0]
            t_inf += time.time() - t0
            frames += 1
            sel = d["frame"] == k
            gb, gc, gi = all_boxes[sel], d["classes"][sel], d["ignore"][sel]
            boxes, scores, cls = decode(out, 0.01)
            for g, members in groups.items():
                ds = np.isin(cls, members)
                gs = np.isin(gc, members)
                db, dsc = boxes[ds], scores[ds]
                tb, ti = gb[gs], gi[gs]
                tps, confs, _ = match(db, dsc, tb, ti)
                acc[g]["tp"] += tps
                acc[g]["conf"] += confs
                acc[g]["ngt"] += int((~ti).sum())
                hi = dsc >= RUST_CONF
                tps25, _, matched25 = match(db[hi], dsc[hi], tb, ti)
                acc[g]["hit25"] += len(matched25)
                acc[g]["det25"] += len(tps25)
                acc[g]["tp25"] += int(sum(tps25))
            # ball found at all (any ball detection ≥ 0.25 within 4 px of the true centre)
            for bb, ig in zip(gb[gc == BALL], gi[gc == BALL]):
                if ig:
                    continue
                ball_gt += 1
                c = np.array([(bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2])
                db = boxes[(cls == BALL) & (scores >= RUST_CONF)]
                if len(db):
                    dc = np.stack([(db[:, 0] + db[:, 2]) / 2, (db[:, 1] + db[:, 3]) / 2], 1)
                    if np.min(np.linalg.norm(dc - c, axis=1)) <= 4.0:
                        ball_near += 1
    res = {"frames": frames, "seeds": [Path(f).stem for f in files],
           "ms_per_frame_onnxruntime": round(1000 * t_inf / max(frames, 1), 1), "classes": {}}
    for g, v in acc.items():
        res["classes"][g] = {
            "ap50": round(ap101(v["tp"], v["conf"], v["ngt"]), 4),
            "recall@0.25": round(v["hit25"] / max(v["ngt"], 1), 4),
            "precision@0.25": round(v["tp25"] / max(v["det25"], 1), 4),
            "truth_boxes": v["ngt"],
        }
    res["ball_recall_within_4px@0.25"] = round(ball_near / max(ball_gt, 1), 4)
    print(json.dumps(res, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
