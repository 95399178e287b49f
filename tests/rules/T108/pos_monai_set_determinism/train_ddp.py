# stagec fixture: pos_monai_set_determinism
# named: on the command line (`torchrun --nproc_per_node=4 train_ddp.py --seed 7`)
# context: no experiment config; a MONAI DDP script seeds through set_determinism when a
#          seed is given, and the spawned worker turns cuDNN benchmarking back on.
# expect:
#   T108 at 25:5 cudnn.benchmark = True in code that seeds torch with set_determinism
#        (line 41).
# ----
import argparse
import os

import torch
import torch.distributed as dist
from monai.networks.nets import UNet
from monai.utils import set_determinism
from torch.nn.parallel import DistributedDataParallel


def train(args):
    dist.init_process_group(backend="nccl", init_method="env://")
    device = torch.device(f"cuda:{os.environ['LOCAL_RANK']}")
    torch.cuda.set_device(device)
    model = UNet(spatial_dims=3, in_channels=1, out_channels=2, channels=(8, 16), strides=(2,)).to(device)
    model = DistributedDataParallel(model, device_ids=[device])
    torch.backends.cudnn.benchmark = True
    opt = torch.optim.Adam(model.parameters(), 1e-4)
    for _ in range(args.epochs):
        loss = model(torch.randn(1, 1, 32, 32, 32, device=device)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.seed is not None:
        set_determinism(seed=args.seed)
    train(args)


if __name__ == "__main__":
    main()
