"""Quantises an exported TinyDet (float ONNX) to 8-bit integers for the CPU: static, QDQ format,
per-channel int8 weights and uint8 activations, calibrated on real labelled train frames.

Only the network's convolutions and what sits between them (nodes named `/net/...`) are
quantised; the last head convolution (its output mixes heatmap logits and box offsets, two
very different ranges) and the decoding after it (sigmoid, peak picking, the box arithmetic and
the final concat of pixel boxes with 0..1 scores) stay in float. Quantising the concat put the
scores on the boxes' scale and zeroed every one of them.

Calibration: every third of the first 60 train images of players-dfl and of players-mls (40
frames, sorted by name; the valid splits are kept for measuring), letterboxed exactly as the
Rust side does (`common.letterbox`). The model's metadata (`names`, `stride`, `imgsz`, ...) is
kept, with `quantization` added.

    python tools/train/quantize.py --model models/sportz-det.onnx \
        --datasets ../shared/assets/datasets --out models/sportz-det-int8.onnx
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import letterbox  # noqa: E402

CALIBRATION = {"players-dfl": slice(0, 60, 3), "players-mls": slice(0, 60, 3)}


def calibration_images(datasets):
    paths = []
    for name, pick in CALIBRATION.items():
        d = Path(datasets) / name / "train" / "images"
        found = sorted(p for p in d.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        if not found:
            raise SystemExit(f"{d}: no images (expected the {name} train split; --datasets is the folder "
                             "holding players-dfl/ and players-mls/)")
        paths += found[pick]
    return paths


class Frames(CalibrationDataReader):
    def __init__(self, paths, input_name, size):
        self.items = iter(paths)
        self.input_name = input_name
        self.size = size

    def get_next(self):
        p = next(self.items, None)
        if p is None:
            return None
        img = np.asarray(Image.open(p).convert("RGB"))
        x = letterbox(img, *self.size, as_uint8=False) / 255.0
        return {self.input_name: x.astype(np.float32).transpose(2, 0, 1)[None]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="float TinyDet ONNX (export.py)")
    ap.add_argument("--datasets", required=True, help="folder with players-dfl/ and players-mls/")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    src = onnx.load(a.model)
    image = src.graph.input[0]
    dims = [d.dim_value for d in image.type.tensor_type.shape.dim]
    if len(dims) != 4 or dims[1] != 3 or not dims[2] or not dims[3]:
        raise SystemExit(f"{a.model}: input {image.name} is {dims}, expected a fixed [1, 3, H, W]")
    size = (dims[3], dims[2])
    net = [n.name for n in src.graph.node if n.name.startswith("/net/")]
    head = [n for n in net if n.startswith("/net/head/") and n.endswith("/Conv")]
    if not net or not head:
        raise SystemExit(f"{a.model}: no /net/ nodes or head convolution: not a TinyDet export")
    last_head = sorted(head)[-1]
    quantised = [n for n in net if n != last_head]
    paths = calibration_images(a.datasets)
    print(f"{a.model}: input {size[0]}x{size[1]}, quantising {len(quantised)} of {len(src.graph.node)} nodes "
          f"(float: {last_head} and the decoding), calibrating on {len(paths)} train frames", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(a.model, str(pre), skip_symbolic_shape=True)
        out = Path(tmp) / "q.onnx"
        quantize_static(str(pre), str(out), Frames(paths, image.name, size), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_quantize=quantised)
        q = onnx.load(str(out))
    meta = {p.key: p.value for p in src.metadata_props}
    meta["quantization"] = (f"static int8 (QDQ, per-channel weights, uint8 activations) of {len(quantised)} "
                            f"network nodes; calibrated on {len(paths)} players-dfl/players-mls train frames; "
                            "tools/train/quantize.py")
    del q.metadata_props[:]
    for k, v in meta.items():
        q.metadata_props.add(key=k, value=v)
    q.producer_name, q.producer_version = src.producer_name, src.producer_version
    onnx.save(q, a.out)
    print(f"wrote {a.out} ({Path(a.out).stat().st_size / 1024:.0f} KiB)", file=sys.stderr)


if __name__ == "__main__":
    main()
