"""Initialises a TinyDet from an exported float TinyDet ONNX (e.g. models/sportz-det.onnx,
whose training checkpoint is not kept; the 8-bit models/sportz-det-int8.onnx is refused).

The TorchScript exporter folds each BatchNorm into its convolution, so the ONNX holds one
Conv (weight + bias) per conv/BN pair, in forward order, which is also TinyDet's module order.
Each conv gets the folded weight; its BatchNorm is then set so that it reproduces the folded
bias both in training mode on a calibration batch (gamma = the batch std, beta = the batch
mean + bias) and in eval mode (running statistics = the batch statistics), so the network
starts exactly where the exported one is.
"""

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper


def onnx_convs(path):
    m = onnx.load(str(path))
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    convs = []
    for node in m.graph.node:
        if node.op_type == "Conv":
            if node.input[1] not in inits:
                raise SystemExit(f"{path}: the weights of {node.name} are not stored floats (a quantised model?); "
                                 "start from the float export, e.g. models/sportz-det.onnx")
            w = inits[node.input[1]]
            b = inits[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
            convs.append((w, b))
        elif node.op_type == "BatchNormalization":
            raise SystemExit("the ONNX has unfolded BatchNorm nodes; not supported")
    return convs


def init_from_onnx(net, path, calib, check):
    """Loads the ONNX weights into `net` (a TinyDet of the same shape); `calib` is a batch of
    inputs [B, 3, h, w] for the BatchNorm statistics, `check` one model input [1, 3, H, W].
    Returns the max |difference| of the scores and of the boxes between the network in eval
    mode and onnxruntime on `check`."""
    convs = onnx_convs(path)
    mods = list(net.modules())
    pairs = []  # (conv, bn or None)
    for i, m in enumerate(mods):
        if isinstance(m, nn.Conv2d):
            bn = mods[i + 1] if i + 1 < len(mods) and isinstance(mods[i + 1], nn.BatchNorm2d) else None
            pairs.append((m, bn))
    if len(pairs) != len(convs):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the network has {len(pairs)}")
    biases = []
    with torch.no_grad():
        for (conv, bn), (w, b) in zip(pairs, convs):
            if tuple(conv.weight.shape) != w.shape:
                raise SystemExit(f"shape mismatch {tuple(conv.weight.shape)} vs {w.shape}")
            conv.weight.copy_(torch.from_numpy(w))
            if bn is None:
                conv.bias.copy_(torch.from_numpy(b))
            else:
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(b))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
            biases.append(torch.from_numpy(b))
        # statistics of each conv's raw output in the exported network (eval mode == the ONNX)
        stats = {}

        def hook(key):
            def f(_m, _inp, out):
                stats[key] = (out.mean((0, 2, 3)), out.var((0, 2, 3), unbiased=False))
            return f

        hs = [conv.register_forward_hook(hook(k)) for k, (conv, bn) in enumerate(pairs) if bn is not None]
        net.eval()
        net(calib)
        for h in hs:
            h.remove()
        for k, (conv, bn) in enumerate(pairs):
            if bn is None:
                continue
            mean, var = stats[k]
            bn.weight.copy_(torch.sqrt(var + bn.eps))
            bn.bias.copy_(mean + biases[k])
            bn.running_mean.copy_(mean)
            bn.running_var.copy_(var)
    import onnxruntime as ort

    from model import Yolov8Export

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    # the ONNX has a fixed input size: compare on the top-left part of `check` of that size
    # (the network is fully convolutional, so a model for another input size starts from it too)
    ih, iw = sess.get_inputs()[0].shape[2:]
    if not (isinstance(ih, int) and isinstance(iw, int)):
        ih, iw = check.shape[2:]
    if check.shape[2] < ih or check.shape[3] < iw:
        raise SystemExit(f"{path}: input {iw}x{ih} is larger than the training frames "
                         f"{check.shape[3]}x{check.shape[2]}")
    x = check[:, :, :ih, :iw].contiguous()
    exp = Yolov8Export(net, 4, (ih, iw)).eval()
    got = sess.run(None, {"images": x.numpy()})[0]
    with torch.no_grad():
        want = exp(x).numpy()
    net.train()
    return float(np.abs(got[:, 4:] - want[:, 4:]).max()), float(np.abs(got[:, :4] - want[:, :4]).max())
