# stagec fixture: pos_s22_colossalai_set_seed (issue 22, class 3; Open-Sora's seeding: ColossalAI's
#   `set_seed(cfg.seed)` seeds `random`, numpy and torch alike on every rank, and a plain shuffling
#   DataLoader then draws the same order on each)
# named: on the command line (a torchrun script)
# expect:
#   T101 at 26:46 DataLoader(shuffle=True) draws from the global RNG …
# ----
import argparse

import torch
import torch.distributed as dist
from colossalai.utils import set_seed
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1024)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    set_seed(args.seed)
    data = TensorDataset(torch.randn(1024, 8))
    model = DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(data, batch_size=32, shuffle=True)
    for epoch in range(10):
        for (x,) in loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
