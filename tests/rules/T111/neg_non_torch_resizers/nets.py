# stagec fixture: h07_neg_non_torch_resizers
# context: any
# expect: no finding.
#   None of these is torch.nn.functional.interpolate or nn.Upsample: OpenCV's cv2.resize,
#   PIL's Image.resize, torchvision's transforms (which call interpolate with an explicit
#   align_corners=False themselves), SciPy's interpolate module, numpy.interp, and a local helper
#   that happens to be named `interpolate` and takes mode="linear".
# ----
import cv2
import numpy as np
import torch
from PIL import Image
from scipy import interpolate as sp_interp
from torchvision.transforms import InterpolationMode
from torchvision.transforms import functional as TF


def interpolate(a: float, b: float, t: float, mode: str = "linear") -> float:
    if mode == "linear":
        return a + (b - a) * t
    return a if t < 0.5 else b


def preprocess(path: str) -> torch.Tensor:
    bgr = cv2.imread(path)
    small = cv2.resize(bgr, (224, 224), interpolation=cv2.INTER_LINEAR)
    pil = Image.fromarray(small[:, :, ::-1]).resize((256, 256), Image.BILINEAR)
    t = TF.to_tensor(pil)
    return TF.resize(t, [224, 224], interpolation=InterpolationMode.BILINEAR, antialias=True)


def lr_at(step: int, warmup: int = 500, peak: float = 3e-4) -> float:
    xs, ys = np.array([0, warmup, 10 * warmup]), np.array([0.0, peak, peak / 10])
    curve = sp_interp.interp1d(xs, ys, kind="linear", fill_value="extrapolate")
    return float(np.interp(step, xs, ys)) * 0.5 + float(curve(step)) * 0.5


def blend(step: int) -> float:
    return interpolate(0.0, 1.0, min(1.0, step / 1000), mode="linear")


if __name__ == "__main__":
    print(lr_at(100), blend(250))
