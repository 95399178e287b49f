# stagec fixture: t22f_neg_seed_everything_without_seed
# named: on the command line (`python fit.py`)
# context: no experiment config; seed_everything() is called without a seed (Lightning 1.x
#          draws a random one, 2.x takes PL_GLOBAL_SEED or 0) and a worker seed is drawn
#          from torch.initial_seed(): no seed here states that runs must repeat.
# expect: none
# ----
import lightning as L
import torch
from torch import nn


def worker_seed() -> int:
    return torch.initial_seed() % 2**32


L.seed_everything()
torch.cuda.manual_seed(worker_seed())
torch.backends.cudnn.benchmark = True

net = nn.Conv2d(3, 3, 3).cuda()
opt = torch.optim.SGD(net.parameters(), lr=0.01)
for _ in range(5):
    loss = net(torch.randn(2, 3, 16, 16, device="cuda")).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
