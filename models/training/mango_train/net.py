"""The bruise segmentation network: a small U-Net with a stride-2 stem.

Input  [N, 3, H, W]: RGB scaled to [0, 1] then (x - 0.5) / 0.25.
Output [N, 2, H, W]: per pixel the fruit logit and the lesion ("bruise") logit, each its own sigmoid
(a lesion pixel is also a fruit pixel). The fruit is learned, not taken from a colour rule, so rotten,
black or mouldy peel can be fruit.

About 0.19 M parameters; 0.5 GMAC at 320 x 320.

With `canon` (train.py --canon grey|exposure) the network first brings its view to a fixed grey and
exposure, or to a fixed exposure only (`Canon`): with `grey` every channel's mean in linear light over
the view's picture pixels (the zero padding of a photo that is not square left out) is scaled to
CANON_MEAN; with `exposure` the three channels' common mean is, so the colour balance is kept. A
white-balance cast or an exposure change multiplies each channel by a constant in linear light, so it
no longer reaches the U-Net (up to clipped pixels and JPEG); the layer is part of the exported graph,
so the product's inference does not change.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv(i, o, stride=1, dilation=1):
    return nn.Sequential(
        nn.Conv2d(i, o, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(o),
        nn.ReLU(inplace=True),
    )


MEAN, STD = 0.5, 0.25
CANON_MEAN = 0.2  # linear light: about sRGB 0.48
GAMMA = 2.2


class Canon(nn.Module):
    """Grey-world white balance and exposure (or exposure only) in linear light over the view's non-padding pixels."""

    def __init__(self, mode='grey'):
        super().__init__()
        self.mode = mode

    def forward(self, x):
        rgb = (x * STD + MEAN).clamp(0, 1)
        picture = (rgb.sum(1, keepdim=True) > 0.03).float()
        lin = rgb.pow(GAMMA)
        n = picture.sum((2, 3), keepdim=True).clamp(min=1.0)
        mean = (lin * picture).sum((2, 3), keepdim=True) / n
        if self.mode == 'exposure':
            mean = mean.mean(1, keepdim=True)
        out = (lin * (CANON_MEAN / mean.clamp(min=1e-4))).clamp(min=1e-6).pow(1 / GAMMA)
        return ((out - MEAN) / STD) * picture + ((0 - MEAN) / STD) * (1 - picture)


class BruiseUNet(nn.Module):
    def __init__(self, c=(16, 32, 48, 64), inputs=3, outputs=2, canon=None):
        super().__init__()
        self.canon = Canon(canon) if canon else None
        c1, c2, c3, c4 = c
        self.stem = nn.Sequential(conv(inputs, c1, 2), conv(c1, c1))  # 1/2
        self.down2 = nn.Sequential(conv(c1, c2, 2), conv(c2, c2))  # 1/4
        self.down3 = nn.Sequential(conv(c2, c3, 2), conv(c3, c3))  # 1/8
        # 1/16 with dilations: context to tell a shaded side or a blush from a lesion
        self.down4 = nn.Sequential(conv(c3, c4, 2), conv(c4, c4, dilation=2), conv(c4, c4, dilation=4))
        self.up3 = conv(c4 + c3, c3)
        self.up2 = conv(c3 + c2, c2)
        self.up1 = conv(c2 + c1, c1)
        self.head = nn.Conv2d(c1, outputs, 1)

    def forward(self, x):
        if self.canon is not None:
            x = self.canon(x)
        s1 = self.stem(x)
        s2 = self.down2(s1)
        s3 = self.down3(s2)
        s4 = self.down4(s3)
        y = self.up3(torch.cat([F.interpolate(s4, size=s3.shape[2:], mode='bilinear', align_corners=False), s3], 1))
        y = self.up2(torch.cat([F.interpolate(y, size=s2.shape[2:], mode='bilinear', align_corners=False), s2], 1))
        y = self.up1(torch.cat([F.interpolate(y, size=s1.shape[2:], mode='bilinear', align_corners=False), s1], 1))
        y = self.head(y)
        return F.interpolate(y, size=x.shape[2:], mode='bilinear', align_corners=False)
