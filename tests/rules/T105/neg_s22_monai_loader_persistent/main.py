# stagec fixture: neg_s22_monai_loader_persistent (look-alike of pos_s22_monai_loader_restarted:
#   the workers are kept between passes)
# named: on the command line (an mp.spawn script)
# expect: nothing
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
        persistent_workers=True,
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
