# stagec fixture: t22f_pos_seeded_ddp_script
# named: on the command line (a torchrun script: `torchrun --nproc_per_node 8 train.py --seed 7`)
# context: no experiment config; each rank seeds torch with the seed plus its rank, then
#          turns cuDNN benchmarking on.
# expect:
#   T108 at 39:5 cudnn.benchmark = True in code that seeds torch (line 36): cuDNN times
#        convolution algorithms on each run, so two runs with the same seed can differ.
# ----
import argparse
import os

import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--epochs", type=int, default=10)
    return p.parse_args()


def main() -> None:
    args = parse()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)

    seed = args.seed + rank
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)

    cudnn.benchmark = True

    net = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Flatten()).cuda()
    net = DistributedDataParallel(net, device_ids=[local_rank])
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(args.epochs):
        x = torch.randn(8, 3, 32, 32, device="cuda")
        loss = net(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
