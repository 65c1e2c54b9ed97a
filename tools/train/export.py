"""Exports the trained TinyDet to ONNX in the Ultralytics YOLOv8 layout, with metadata."""

import argparse
import sys
from pathlib import Path

import numpy as np
import onnx
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import INPUT_H, INPUT_W, NAMES, STRIDE  # noqa: E402
from model import TinyDet, Yolov8Export, count_params  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default="/var/tmp/sportz-train-data/ckpt.pt")
    ap.add_argument("--out", default="models/sportz-det.onnx")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--description", default="sportz default detector: TinyDet (CenterNet-style, stride 4) "
                    "trained on sportz synth frames; Ultralytics YOLOv8 output layout")
    a = ap.parse_args()
    ck = torch.load(a.ckpt, map_location="cpu")
    net = TinyDet(len(NAMES))
    net.load_state_dict(ck["model"])
    net.eval()
    model = Yolov8Export(net, STRIDE, (INPUT_H, INPUT_W)).eval()
    x = torch.rand(1, 3, INPUT_H, INPUT_W)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(model, (x,), str(tmp), input_names=["images"], output_names=["output0"],
                      opset_version=a.opset, dynamo=False, do_constant_folding=True)
    m = onnx.load(str(tmp))
    names = "{" + ", ".join(f"{i}: '{n}'" for i, n in enumerate(NAMES)) + "}"
    meta = {
        "description": a.description,
        "author": "sportz",
        "license": "same as the sportz repository",
        "version": "1",
        "task": "detect",
        "stride": str(STRIDE),
        "batch": "1",
        "imgsz": f"[{INPUT_H}, {INPUT_W}]",
        "names": names,
        "params": str(count_params(net)),
        "trained_iters": str(ck.get("iters", "")),
    }
    del m.metadata_props[:]
    for k, v in meta.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    m.producer_name = "sportz tools/train"
    onnx.checker.check_model(m)
    onnx.save(m, str(out))
    tmp.unlink()
    # the exported graph matches PyTorch
    import onnxruntime as ort

    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"images": x.numpy()})[0]
    with torch.no_grad():
        want = model(x).numpy()
    print(f"exported {out} ({out.stat().st_size / 1e6:.2f} MB), input {sess.get_inputs()[0].shape}, "
          f"output {sess.get_outputs()[0].shape}, max |onnx - torch| {np.abs(got - want).max():.2e}")
    for k, v in meta.items():
        print(f"  {k}: {v}")


if __name__ == "__main__":
    main()
