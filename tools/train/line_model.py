"""LineNet: a small U-Net that says, for every 2x2 cell of a frame, whether a pitch marking is
painted there. Input RGB in 0..1, NCHW, any size (multiples of 16 are exact); output the line
probability at stride 2. About 0.8 GMAC at 640x360.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def cbr(cin, cout, k=3, s=1, d=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, d * (k // 2), dilation=d, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class LineNet(nn.Module):
    def __init__(self, c=(16, 32, 48, 64)):
        super().__init__()
        c1, c2, c3, c4 = c
        self.e1 = cbr(3, c1, s=2)                                   # 1/2
        self.e2 = nn.Sequential(cbr(c1, c2, s=2), cbr(c2, c2))      # 1/4
        self.e3 = nn.Sequential(cbr(c2, c3, s=2), cbr(c3, c3))      # 1/8
        self.e4 = nn.Sequential(cbr(c3, c4, s=2), cbr(c4, c4), cbr(c4, c4, d=2))  # 1/16
        self.d3 = nn.Sequential(cbr(c4 + c3, c3, k=1), cbr(c3, c3))
        self.d2 = nn.Sequential(cbr(c3 + c2, c2, k=1), cbr(c2, c2))
        self.d1 = nn.Sequential(cbr(c2 + c1, c1, k=1), cbr(c1, c1))
        self.head = nn.Conv2d(c1, 1, 1)
        nn.init.constant_(self.head.bias, -3.0)

    @staticmethod
    def up(x, like):
        return F.interpolate(x, size=like.shape[-2:], mode="bilinear", align_corners=False)

    def forward(self, x):
        f1 = self.e1(x)
        f2 = self.e2(f1)
        f3 = self.e3(f2)
        f4 = self.e4(f3)
        y = self.d3(torch.cat([self.up(f4, f3), f3], 1))
        y = self.d2(torch.cat([self.up(y, f2), f2], 1))
        y = self.d1(torch.cat([self.up(y, f1), f1], 1))
        return self.head(y)


class Exported(nn.Module):
    """The ONNX graph: `images` float RGB 0..1 [1,3,H,W] → `lines` probability [1,1,H/2,W/2]."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, images):
        return torch.sigmoid(self.net(images))
