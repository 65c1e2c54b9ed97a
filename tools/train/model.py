"""A tiny anchor-free (CenterNet-style) detector with one stride-4 head, and its export wrapper
that emits the Ultralytics YOLOv8 layout `[1, 4+nc, N]`.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def cbr(cin, cout, k=3, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class TinyDet(nn.Module):
    """Backbone to stride 16, a light top-down path back to stride 4, one head at stride 4.

    Head channels: nc heatmap logits, 2 sub-cell offsets, 2 log sizes (in units of the stride).
    """

    def __init__(self, nc=4, c=(0, 32, 48, 96)):
        super().__init__()
        self.nc = nc
        _, c2, c3, c4 = c
        # patchify stem straight to stride 4 (cheap on a CPU), then a 3x3 mix
        self.s4 = nn.Sequential(nn.Conv2d(3, c2, 4, 4, 0, bias=False), nn.BatchNorm2d(c2), nn.ReLU(inplace=True),
                                cbr(c2, c2), cbr(c2, c2))
        self.s8 = nn.Sequential(cbr(c2, c3, s=2), cbr(c3, c3))
        self.s16 = nn.Sequential(cbr(c3, c4, s=2), cbr(c4, c4), cbr(c4, c4))
        self.lat16 = cbr(c4, c3, k=1)
        self.fuse8 = cbr(c3, c3)
        self.lat8 = cbr(c3, c2, k=1)
        self.fuse4 = cbr(c2, c2)
        self.head = nn.Sequential(cbr(c2, 32), nn.Conv2d(32, nc + 4, 1))
        prior = 0.01
        nn.init.constant_(self.head[-1].bias[:nc], -torch.log(torch.tensor((1 - prior) / prior)).item())
        nn.init.constant_(self.head[-1].bias[nc:], 0.0)

    def forward(self, x):
        f4 = self.s4(x)
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        p8 = self.fuse8(f8 + F.interpolate(self.lat16(f16), scale_factor=2.0, mode="nearest"))
        p4 = self.fuse4(f4 + F.interpolate(self.lat8(p8), scale_factor=2.0, mode="nearest"))
        return self.head(p4)


class Yolov8Export(nn.Module):
    """Turns the raw head into `[1, 4+nc, H/4*W/4]`: cx, cy, w, h in input pixels, then per-class
    scores. Scores are kept only at local 3x3 maxima (CenterNet's peak extraction), taken over
    all person classes together and over the ball on its own, so that the consumer's
    per-class NMS sees one candidate per object.
    """

    def __init__(self, net, stride=4, input_hw=(384, 640), person_classes=3):
        super().__init__()
        self.net = net
        self.stride = stride
        self.person_classes = person_classes
        h, w = input_hw[0] // stride, input_hw[1] // stride
        gy, gx = torch.meshgrid(torch.arange(h, dtype=torch.float32), torch.arange(w, dtype=torch.float32),
                                indexing="ij")
        self.register_buffer("grid", torch.stack([gx, gy]).reshape(1, 2, h * w))

    def forward(self, x):
        out = self.net(x)
        b, ch, h, w = out.shape
        nc = self.net.nc
        heat = torch.sigmoid(out[:, :nc])
        person = heat[:, : self.person_classes]
        pmax = person.amax(dim=1, keepdim=True)
        pkeep = (pmax >= F.max_pool2d(pmax, 3, 1, 1)).to(heat.dtype)
        ball = heat[:, self.person_classes:]
        bkeep = (ball >= F.max_pool2d(ball, 3, 1, 1)).to(heat.dtype)
        scores = torch.cat([person * pkeep, ball * bkeep], dim=1).reshape(b, nc, h * w)
        reg = out[:, nc:].reshape(b, 4, h * w)
        xy = (self.grid + reg[:, 0:2]) * self.stride
        wh = torch.exp(reg[:, 2:4].clamp(-4.0, 6.0)) * self.stride
        return torch.cat([xy, wh, scores], dim=1)


def count_params(m):
    return sum(p.numel() for p in m.parameters())
