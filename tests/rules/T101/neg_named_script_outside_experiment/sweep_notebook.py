# stagec fixture: h01_neg_named_script_outside_experiment
# named: on the command line (as pre-commit passes a changed file)
# context: the folder's const.yaml runs model_def:DenoiseTrial on 16 slots, but nothing the trial
#          imports imports this file: it is a single-process script for quick sweeps on a
#          workstation, kept next to the experiment.
# expect: no finding.
#   Not T101 at the DataLoader(shuffle=True): the experiment never runs this script, so neither
#   its 16 ranks nor Determined's trial seed apply; on its own it is one process.
#   T108 is not asked for the determinism request in model_def.py (another program); it does
#   fire on this script's own torch.manual_seed(0) + cudnn.benchmark = True (see the snapshot).
# ----
import torch
from torch import nn
from torch.utils.data import DataLoader

from noise import NoisyImages


def sweep(lrs=(1e-4, 3e-4, 1e-3), epochs: int = 2) -> dict:
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    results = {}
    for lr in lrs:
        net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 3, padding=1))
        opt = torch.optim.Adam(net.parameters(), lr=lr)
        loader = DataLoader(NoisyImages(2048), batch_size=64, shuffle=True)
        for _ in range(epochs):
            for noisy, clean in loader:
                loss = nn.functional.mse_loss(net(noisy), clean)
                opt.zero_grad()
                loss.backward()
                opt.step()
        results[lr] = loss.item()
    return results


if __name__ == "__main__":
    print(sweep())
