# stagec fixture: pos_s22_monai_loader_restarted (issue 22, class 9; SwinUNETR's shape: MONAI's
#   DataLoader, torch's underneath, with 8 workers and no persistent_workers, passed over every epoch)
# named: on the command line (an mp.spawn script)
# expect:
#   T105 at 24:9 num_workers=8 starts 8 worker processes on every rank …
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from monai import data
from torch.utils.data.distributed import DistributedSampler


def main_worker(gpu, args):
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:23456", world_size=args.world_size, rank=gpu)
    train_ds = data.Dataset(data=[{"image": i} for i in range(100)])
    sampler = DistributedSampler(train_ds)
    loader = data.DataLoader(
        train_ds,
        batch_size=2,
        sampler=sampler,
        num_workers=args.workers,
        pin_memory=True,
    )
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1).cuda(gpu), device_ids=[gpu])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.max_epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            loss = model(batch["image"].float().view(-1, 1).cuda(gpu)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--max_epochs", type=int, default=5000)
    parser.add_argument("--world_size", type=int, default=8)
    args = parser.parse_args()
    mp.spawn(main_worker, nprocs=args.world_size, args=(args,))
