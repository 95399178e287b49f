# stagec fixture: h01_pos_scripts_named_together
# named: on the command line, with train_ddp.py
# context: no experiment config in the folder; a single-process calibration script: it refits
#          the trained model's last layer on one GPU. It shares shared.py with train_ddp.py but is
#          a program of its own, run without torchrun.
# expect: no finding.
#   Not T101 at RandomSampler(data): this program is one process; that train_ddp.py runs once
#   per rank says nothing about it.
# ----
import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler

from shared import toy


def main() -> None:
    torch.manual_seed(0)
    data = toy(512)
    model = nn.Linear(8, 2)
    model.load_state_dict(torch.load("toy.pt"))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in DataLoader(data, batch_size=64, sampler=RandomSampler(data)):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(model.state_dict(), "toy_calibrated.pt")


if __name__ == "__main__":
    main()
