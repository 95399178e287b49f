# stagec fixture: h07_pos_bilinear_feature_pyramid
# context: any (the rule does not depend on the runtime)
# expect:
#   T111 at 33:29 bilinear
#        interpolation without align_corners: PyTorch applies align_corners=False implicitly.
#        Severity warning (not info): the same model passes align_corners=True explicitly at
#        line 35:76, so its upsampling sites use two different sampling grids.
#        Fix: add `align_corners=False` (keeps today's behaviour, makes it explicit).
# ----
import torch
import torch.nn.functional as F
from torch import nn


class TinyFPN(nn.Module):
    def __init__(self, chans=(64, 128, 256), out=96):
        super().__init__()
        self.stem = nn.Conv2d(3, chans[0], 3, stride=2, padding=1)
        self.down = nn.ModuleList(
            [nn.Conv2d(chans[i], chans[i + 1], 3, stride=2, padding=1) for i in range(len(chans) - 1)]
        )
        self.lateral = nn.ModuleList([nn.Conv2d(c, out, 1) for c in chans])
        self.smooth = nn.Conv2d(out, out, 3, padding=1)
        self.classifier = nn.Conv2d(out, 21, 1)

    def forward(self, img):
        feats = [self.stem(img)]
        for conv in self.down:
            feats.append(conv(feats[-1]))
        top = self.lateral[-1](feats[-1])
        for i in range(len(feats) - 2, -1, -1):
            lateral = self.lateral[i](feats[i])
            top = lateral + F.interpolate(top, size=lateral.shape[-2:], mode="bilinear")
        logits = self.classifier(self.smooth(top))
        return F.interpolate(logits, size=img.shape[-2:], mode="bilinear", align_corners=True)


if __name__ == "__main__":
    net = TinyFPN()
    out = net(torch.randn(2, 3, 128, 128))
    loss = F.cross_entropy(out, torch.randint(0, 21, (2, 128, 128)))
    loss.backward()
    print(out.shape, float(loss))
