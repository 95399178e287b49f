# stagec fixture: neg_s14_benchmark_in_test_script (the entry; BasicSR's test.py)
# named: on the command line (`python test.py`)
# context: the evaluation script parses the same options (which seed) and turns benchmarking
#          on; it trains nothing, so the seed only picks what is shown and the timing-chosen
#          algorithms change no training run.
# expect: none
# ----
import os

import torch
from torch import nn

from options import parse_options


def test_pipeline():
    opt = parse_options({"manual_seed": int(os.environ.get("SEED", "0")), "rank": 0})
    torch.backends.cudnn.benchmark = True
    model = nn.Conv2d(3, 3, 3).cuda().eval()
    with torch.no_grad():
        for _ in range(10):
            out = model(torch.randn(2, 3, 16, 16, device="cuda"))
            print(opt["manual_seed"], out.mean().item())


if __name__ == "__main__":
    test_pipeline()
