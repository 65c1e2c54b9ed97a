"""Trains TinyDet on the letterboxed frames written by gen_data.py / real_data.py (or their
JPEG packs from pack.py), on a CPU or, with `--device cuda`, on a GPU.

Random crops (default 320x192) at a random scale (0.75-1.35) with horizontal flips and mild
brightness/contrast jitter; CenterNet targets at stride 4 (elliptical Gaussians, focal loss),
L1 on sub-cell offsets and log sizes. Weights are averaged (EMA) and the average is saved.
With `--workers N` the batches are made by N processes (needed to keep a GPU busy); the run is
then not bit-for-bit reproducible, and a resumed run draws other batches than an unbroken one.
"""

import argparse
import copy
import glob
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BALL, INPUT_H, INPUT_W, NAMES, STRIDE, reletterbox  # noqa: E402
from model import TinyDet, count_params  # noqa: E402

CROP = (320, 192)


def load_sources(spec):
    """`--data`: comma-separated sources, each a folder (its seed-*.npz and real-*.npz) or one
    .npz file, optionally with a sampling weight `path:weight` (default 1). Every source is
    sampled with probability weight / sum(weights), frames uniformly within a source.

    Returns (images, labels, per-frame sampling probabilities, description)."""
    parts, all_images, all_labels, probs, desc = [p for p in spec.split(",") if p], [], [], [], []
    ws = []
    for part in parts:
        path, _, w = part.partition(":")
        w = float(w) if w else 1.0
        p = Path(path)
        if p.is_dir():
            files = sorted(glob.glob(str(p / "seed-*.npz")) + glob.glob(str(p / "real-*.npz")))
            files = [f for f in files if not f.endswith(".pack.npz")] or sorted(glob.glob(str(p / "*.pack.npz")))
        else:
            files = [str(p)]
        files = [f for f in files if ".tmp." not in f]
        n0 = len(all_labels)
        for f in files:
            d = np.load(f)
            if "jpeg" in d:
                from pack import decode_pack

                imgs = decode_pack(d)
            else:
                imgs = d["images"]
            fr, bx, cl, ig = d["frame"], d["boxes"], d["classes"], d["ignore"]
            if imgs.shape[1:3] != (INPUT_H, INPUT_W):
                imgs, bx = reletterbox(f, d, imgs, bx, INPUT_W, INPUT_H)
            for k in range(len(imgs)):
                sel = fr == k
                all_labels.append((bx[sel], cl[sel], ig[sel]))
            all_images.append(imgs)
        n = len(all_labels) - n0
        if n == 0:
            raise SystemExit(f"no frames in {path}")
        ws.append((n, w))
        desc.append(f"{path}: {len(files)} files, {n} frames, weight {w:g}")
    total_w = sum(w for _, w in ws)
    for n, w in ws:
        probs.append(np.full(n, w / total_w / n))
    probs = np.concatenate(probs)
    return np.concatenate(all_images), all_labels, probs / probs.sum(), desc


def load(data_dir):
    images, labels, _, desc = load_sources(str(data_dir))
    return images, labels, len(desc)


def gaussian_targets(boxes, classes, ignore, nc, out_h, out_w):
    heat = np.zeros((nc, out_h, out_w), np.float32)
    neg_mask = np.ones((nc, out_h, out_w), np.float32)
    reg = np.zeros((4, out_h, out_w), np.float32)
    reg_w = np.zeros((out_h, out_w), np.float32)
    ys, xs = np.mgrid[0:out_h, 0:out_w]
    for (x1, y1, x2, y2), c, ig in zip(boxes, classes, ignore):
        cx, cy = (x1 + x2) / 2 / STRIDE, (y1 + y2) / 2 / STRIDE
        w, h = (x2 - x1) / STRIDE, (y2 - y1) / STRIDE
        if w <= 0 or h <= 0:
            continue
        if ig:
            gx1, gy1 = max(int(math.floor(x1 / STRIDE)) - 1, 0), max(int(math.floor(y1 / STRIDE)) - 1, 0)
            gx2, gy2 = min(int(math.ceil(x2 / STRIDE)) + 1, out_w), min(int(math.ceil(y2 / STRIDE)) + 1, out_h)
            chans = [BALL] if c == BALL else [k for k in range(nc) if k != BALL]
            for k in chans:
                neg_mask[k, gy1:gy2, gx1:gx2] = 0
            continue
        gx, gy = int(cx), int(cy)
        if not (0 <= gx < out_w and 0 <= gy < out_h):
            continue
        sx, sy = max(0.5, w / 6), max(0.5, h / 6)
        r = 3
        xa, xb, ya, yb = max(gx - r * 3, 0), min(gx + r * 3 + 1, out_w), max(gy - r * 3, 0), min(gy + r * 3 + 1, out_h)
        g = np.exp(-((xs[ya:yb, xa:xb] - gx) ** 2) / (2 * sx * sx) - ((ys[ya:yb, xa:xb] - gy) ** 2) / (2 * sy * sy))
        heat[c, ya:yb, xa:xb] = np.maximum(heat[c, ya:yb, xa:xb], g)
        # regression wherever this object's Gaussian is meaningful and strongest
        sel = (g > 0.1) & (g >= reg_w[ya:yb, xa:xb])
        if c == BALL:
            sel &= (np.abs(xs[ya:yb, xa:xb] - gx) <= 1) & (np.abs(ys[ya:yb, xa:xb] - gy) <= 1)
        yy, xx = np.nonzero(sel)
        yy, xx = yy + ya, xx + xa
        reg[0, yy, xx] = cx - xx
        reg[1, yy, xx] = cy - yy
        reg[2, yy, xx] = math.log(w)
        reg[3, yy, xx] = math.log(h)
        reg_w[yy, xx] = np.maximum(g[sel], 0.2) if c != BALL else 1.0
    return heat, neg_mask, reg, reg_w


def blur(x, sigma):
    """Separable Gaussian blur of one CHW crop (sigma in pixels)."""
    r = max(1, int(math.ceil(2.5 * sigma)))
    k = torch.exp(-torch.arange(-r, r + 1, dtype=torch.float32) ** 2 / (2 * sigma * sigma))
    k = (k / k.sum()).to(x.dtype)
    c = x.shape[0]
    y = F.conv2d(F.pad(x[None], (r, r, 0, 0), mode="replicate"), k.view(1, 1, 1, -1).repeat(c, 1, 1, 1), groups=c)
    y = F.conv2d(F.pad(y, (0, 0, r, r), mode="replicate"), k.view(1, 1, -1, 1).repeat(c, 1, 1, 1), groups=c)
    return y[0]


def make_batch(images, labels, idx, rng, nc, aug="basic", squish=0.0, crop=CROP):
    """aug "basic": the synthetic recipe (scale 0.75-1.35, flips, brightness/contrast).
    aug "broadcast": also a wider log-uniform scale (0.6-1.7), per-channel colour gains,
    saturation jitter, Gaussian blur (30 %) and sensor noise (30 %).
    squish: the share of crops compressed horizontally by 9/16, the way a 16:9 frame looks
    once stretched to a square (as the Roboflow exports are) and letterboxed.
    crop: (width, height) of the crops, multiples of the stride."""
    CROP_W, CROP_H = crop
    n = len(idx)
    broadcast = aug == "broadcast"
    H, W = images.shape[1:3]
    pad = 114.0 / 255.0
    crops, heats, negs, regs, regws = [], [], [], [], []
    for i in idx:
        s = math.exp(rng.uniform(math.log(0.6), math.log(1.7))) if broadcast else rng.uniform(0.75, 1.35)
        ax = 9.0 / 16.0 if squish > 0 and rng.random() < squish else 1.0
        cw, ch = CROP_W / (s * ax), CROP_H / s
        boxes, classes, ignore = labels[i]
        # bias crops towards the ball half the time so that the rare class is seen often
        if rng.random() < 0.5 and np.any((classes == BALL) & ~ignore):
            b = boxes[np.nonzero((classes == BALL) & ~ignore)[0][0]]
            bx, by = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            x0 = bx - rng.uniform(0.1, 0.9) * cw
            y0 = by - rng.uniform(0.1, 0.9) * ch
        else:
            # (a squeezed crop may be wider than the frame: then it is placed anywhere around it)
            x0 = rng.uniform(*sorted((-0.1 * cw, W - 0.9 * cw)))
            y0 = rng.uniform(*sorted((-0.1 * ch, H - 0.9 * ch)))
        flip = rng.random() < 0.5
        # the source patch covering the crop (padded with 114 outside the frame)
        px0, py0 = int(math.floor(x0)) - 1, int(math.floor(y0)) - 1
        pw, ph = int(math.ceil(cw)) + 3, int(math.ceil(ch)) + 3
        patch = np.full((ph, pw, 3), 114, np.uint8)
        sx0, sy0, sx1, sy1 = max(px0, 0), max(py0, 0), min(px0 + pw, W), min(py0 + ph, H)
        if sx1 > sx0 and sy1 > sy0:
            patch[sy0 - py0:sy1 - py0, sx0 - px0:sx1 - px0] = images[i, sy0:sy1, sx0:sx1]
        pt = torch.from_numpy(patch).permute(2, 0, 1)[None].float() / 255.0 - pad
        # affine grid in normalised patch coordinates (align_corners=False)
        lx, ly = x0 - px0, y0 - py0
        sx, sy = cw / pw, ch / ph
        tx = (lx + cw / 2) / pw * 2 - 1
        ty = (ly + ch / 2) / ph * 2 - 1
        theta = torch.tensor([[[-sx if flip else sx, 0, tx], [0, sy, ty]]], dtype=torch.float32)
        grid = F.affine_grid(theta, (1, 3, CROP_H, CROP_W), align_corners=False)
        crops.append(F.grid_sample(pt, grid, mode="bilinear", padding_mode="zeros", align_corners=False)[0] + pad)
        b = (boxes - np.array([x0, y0, x0, y0], np.float32)) * np.array([s * ax, s, s * ax, s], np.float32)
        if flip and len(b):
            b = np.stack([CROP_W - b[:, 2], b[:, 1], CROP_W - b[:, 0], b[:, 3]], 1)
        ig = ignore
        keep = np.ones(len(b), bool)
        if len(b):
            cxs, cys = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
            keep = (cxs >= 0) & (cxs < CROP_W) & (cys >= 0) & (cys < CROP_H)
            # objects cut by the crop edge: ignore rather than teach a wrong extent
            cut = (b[:, 0] < -2) | (b[:, 1] < -2) | (b[:, 2] > CROP_W + 2) | (b[:, 3] > CROP_H + 2)
            b = np.clip(b, 0, [CROP_W, CROP_H, CROP_W, CROP_H])
            ig = ignore | cut
        h_, n_, r_, w_ = gaussian_targets(b[keep], classes[keep], ig[keep], nc, CROP_H // STRIDE, CROP_W // STRIDE)
        heats.append(h_)
        negs.append(n_)
        regs.append(r_)
        regws.append(w_)
    x = torch.stack(crops)
    # photometric jitter
    gain = torch.tensor(rng.uniform(0.8, 1.2, (n, 1, 1, 1)), dtype=torch.float32)
    bias = torch.tensor(rng.uniform(-0.06, 0.06, (n, 1, 1, 1)), dtype=torch.float32)
    x = (x * gain + bias).clamp(0, 1)
    if broadcast:
        chan = torch.tensor(rng.uniform(0.9, 1.1, (n, 3, 1, 1)), dtype=torch.float32)
        sat = torch.tensor(rng.uniform(0.6, 1.4, (n, 1, 1, 1)), dtype=torch.float32)
        grey = x.mean(1, keepdim=True)
        x = (grey + (x - grey) * sat) * chan
        for j in range(n):
            if rng.random() < 0.3:
                x[j] = blur(x[j], rng.uniform(0.4, 1.2))
            if rng.random() < 0.3:
                x[j] = x[j] + torch.randn(x[j].shape, generator=None) * float(rng.uniform(0.005, 0.03))
        x = x.clamp(0, 1)
    t = lambda a: torch.from_numpy(np.stack(a))  # noqa: E731
    return x, t(heats), t(negs), t(regs), t(regws)


class Batches(torch.utils.data.IterableDataset):
    """Endless batches from make_batch, one stream per DataLoader worker (own random state)."""

    def __init__(self, images, labels, probs, nc, a):
        super().__init__()
        self.images, self.labels, self.probs, self.nc, self.a = images, labels, probs, nc, a

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        wid = info.id if info is not None else 0
        torch.set_num_threads(1)
        rng = np.random.default_rng([self.a.seed, wid, int(time.time() * 1e3) % (1 << 31)])
        while True:
            idx = rng.choice(len(self.images), self.a.batch, p=self.probs)
            yield make_batch(self.images, self.labels, idx, rng, self.nc, self.a.aug, self.a.squish, self.a.crop)


def parse_crop(spec):
    w, h = (int(v) for v in spec.lower().split("x"))
    if w % (4 * STRIDE) or h % (4 * STRIDE):
        raise SystemExit(f"--crop {spec}: width and height must be multiples of {4 * STRIDE}")
    return w, h


def losses(out, heat, neg_mask, reg, reg_w, nc, ball_weight=3.0):
    logits = out[:, :nc]
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = -torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * (1 - pos) * neg_mask
    cw = torch.ones(nc, device=out.device)
    cw[BALL] = ball_weight
    cw = cw.view(1, nc, 1, 1)
    npos = pos.sum().clamp(min=1)
    l_heat = ((pos_loss + neg_loss) * cw).sum() / npos
    r = out[:, nc:]
    wsum = reg_w.sum().clamp(min=1)
    l_off = ((r[:, :2] - reg[:, :2]).abs().sum(1) * reg_w).sum() / wsum
    l_size = ((r[:, 2:] - reg[:, 2:]).abs().sum(1) * reg_w).sum() / wsum
    return l_heat, l_off, l_size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/var/tmp/sportz-train-data/train",
                    help="comma-separated folders or .npz files, each optionally path:weight")
    ap.add_argument("--out", default="/var/tmp/sportz-train-data/ckpt.pt")
    ap.add_argument("--minutes", type=float, default=30.0, help="wall-clock training budget")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resume", default=None, help="start from this checkpoint's (EMA) weights")
    ap.add_argument("--init-onnx", default=None,
                    help="start from the weights of an exported TinyDet ONNX (onnx_init.py)")
    ap.add_argument("--aug", default="basic", choices=["basic", "broadcast"])
    ap.add_argument("--squish", type=float, default=0.0,
                    help="share of crops compressed horizontally by 9/16 (square-stretched exports)")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda for a GPU")
    ap.add_argument("--workers", type=int, default=0,
                    help="processes making batches (0: in the training loop, reproducible)")
    ap.add_argument("--crop", type=parse_crop, default=CROP, help="crop size WxH (default 320x192)")
    ap.add_argument("--state", default=None,
                    help="full training state (weights, EMA, optimiser, RNGs, elapsed time), saved "
                         "with every checkpoint; when it exists the run continues from it")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    images, labels, probs, desc = load_sources(a.data)
    print(f"{len(images)} frames loaded in {time.time() - t0:.0f}s", flush=True)
    for line in desc:
        print("  " + line, flush=True)
    nc = len(NAMES)
    dev = torch.device(a.device)
    net = TinyDet(nc)
    base_iters = 0
    if a.resume:
        ck = torch.load(a.resume, map_location="cpu")
        net.load_state_dict(ck["model"])
        base_iters = int(ck.get("iters", 0))
    elif a.init_onnx:
        from onnx_init import init_from_onnx

        calib = make_batch(images, labels, rng.choice(len(images), 16, p=probs), rng, nc, a.aug)[0]
        check = torch.from_numpy(np.ascontiguousarray(images[0])).permute(2, 0, 1)[None].float() / 255.0
        e_s, e_b = init_from_onnx(net, a.init_onnx, calib, check)
        print(f"initialised from {a.init_onnx} (max |torch - onnx|: scores {e_s:.2e}, boxes {e_b:.2e} px)",
              flush=True)
    print(f"TinyDet: {count_params(net)} parameters", flush=True)
    net.to(dev)
    ema = copy.deepcopy(net).eval()
    for q in ema.parameters():
        q.requires_grad_(False)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    # the schedule runs on wall-clock time: warm-up, then cosine to 2% over --minutes
    budget = a.minutes * 60.0
    warm = 50
    hist = []
    it = -1
    elapsed0 = 0.0
    if a.state and Path(a.state).exists():
        st = torch.load(a.state, weights_only=False, map_location=dev)
        net.load_state_dict(st["net"])
        ema.load_state_dict(st["ema"])
        opt.load_state_dict(st["opt"])
        rng.bit_generator.state = st["rng"]
        torch.set_rng_state(st["torch_rng"].cpu())
        it, elapsed0, hist, base_iters = st["it"], st["elapsed"], st["hist"], st["base_iters"]
        print(f"continuing from {a.state}: iteration {it + 1}, {elapsed0:.0f}s of {budget:.0f}s", flush=True)
    t_start = time.time() - elapsed0
    last_save = time.time()
    if a.workers > 0:
        loader = iter(torch.utils.data.DataLoader(Batches(images, labels, probs, nc, a), batch_size=None,
                                                  num_workers=a.workers, pin_memory=dev.type == "cuda",
                                                  prefetch_factor=4, persistent_workers=True))

        def next_batch():
            return next(loader)
    else:
        def next_batch():
            idx = rng.choice(len(images), a.batch, p=probs)
            return make_batch(images, labels, idx, rng, nc, a.aug, a.squish, a.crop)

    def save():
        torch.save({"model": ema.state_dict(), "iters": base_iters + it + 1, "names": NAMES}, a.out + ".tmp")
        os.replace(a.out + ".tmp", a.out)
        if a.state:
            torch.save({"net": net.state_dict(), "ema": ema.state_dict(), "opt": opt.state_dict(),
                        "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(), "it": it,
                        "elapsed": time.time() - t_start, "hist": hist[-50:], "base_iters": base_iters},
                       a.state + ".tmp")
            os.replace(a.state + ".tmp", a.state)

    while True:
        it += 1
        frac = (time.time() - t_start) / budget
        if frac >= 1.0:
            it -= 1
            break
        lr = a.lr * min(1.0, (it + 1) / warm) * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac)))
        for g in opt.param_groups:
            g["lr"] = lr
        x, heat, neg, reg, regw = (t.to(dev, non_blocking=True) for t in next_batch())
        net.train()
        out = net(x)
        lh, lo, ls = losses(out, heat, neg, reg, regw, nc)
        loss = lh + lo + ls
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()
        d = min(0.995, (1 + it) / (10 + it))
        with torch.no_grad():
            for e, m in zip(ema.state_dict().values(), net.state_dict().values()):
                if e.dtype.is_floating_point:
                    e.mul_(d).add_(m.detach(), alpha=1 - d)
                else:
                    e.copy_(m)
        hist.append([lh.item(), lo.item(), ls.item()])
        if (it + 1) % 50 == 0 or it == 0:
            h = np.mean(hist[-50:], 0)
            el = time.time() - t_start
            print(f"it {it + 1} heat {h[0]:.3f} off {h[1]:.3f} size {h[2]:.3f} "
                  f"lr {lr:.5f} {el:.0f}s ({el / (it + 1):.2f}s/it)", flush=True)
        if time.time() - last_save > 30:
            save()
            last_save = time.time()
    save()
    print(f"training: {it + 1} iterations of {a.batch} crops in {time.time() - t_start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
