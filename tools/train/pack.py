"""Packs training .npz files (gen_data.py / real_data.py layout: letterboxed uint8 frames plus
boxes) into a compact form for carrying to another machine: each frame a JPEG, the labels as
they are (and the frames' source size, where the .npz has one). train.py reads a pack wherever
it reads an .npz (`*.pack.npz`); the frames are decoded once at load time.

  python tools/train/pack.py --src real-dfl-train.npz --out pack/real-dfl-train.pack.npz --quality 90
"""

import argparse
import io
from pathlib import Path

import numpy as np
from PIL import Image

def encode(img, quality):
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format="JPEG", quality=quality, subsampling=0 if quality >= 90 else 2)
    return np.frombuffer(buf.getvalue(), np.uint8)


def decode_pack(d):
    """The frames of a loaded pack, uint8 [K, H, W, 3]."""
    data, offsets = d["jpeg"], d["offsets"]
    frames = [np.asarray(Image.open(io.BytesIO(data[offsets[k]:offsets[k + 1]].tobytes())).convert("RGB"))
              for k in range(len(offsets) - 1)]
    return np.stack(frames)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", type=Path, required=True, nargs="+", help=".npz files to pack, one pack each")
    ap.add_argument("--out", type=Path, required=True, help="output folder")
    ap.add_argument("--quality", type=int, default=90)
    ap.add_argument("--every", type=int, default=1, help="keep every n-th frame")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    for src in a.src:
        d = np.load(src)
        images = d["images"]
        keep = np.arange(0, len(images), a.every)
        remap = -np.ones(len(images), np.int64)
        remap[keep] = np.arange(len(keep))
        sel = remap[d["frame"]] >= 0
        blobs = [encode(images[k], a.quality) for k in keep]
        offsets = np.concatenate([[0], np.cumsum([len(b) for b in blobs])]).astype(np.int64)
        out = a.out / (src.name.removesuffix(".npz") + ".pack.npz")
        np.savez(out, jpeg=np.concatenate(blobs), offsets=offsets, frame=remap[d["frame"][sel]],
                 boxes=d["boxes"][sel], classes=d["classes"][sel], ignore=d["ignore"][sel],
                 **({"source_size": d["source_size"]} if "source_size" in d else {}))
        print(f"{out}: {len(keep)} frames, {out.stat().st_size / 1e6:.1f} MB", flush=True)


if __name__ == "__main__":
    main()
