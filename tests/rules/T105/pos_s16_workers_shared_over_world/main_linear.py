# stagec fixture: pos_s16_workers_shared_over_world (issue 22, class 9; review 20)
# named: on the command line (`torchrun --nproc_per_node 8 main_linear.py`)
# context: SLIP's linear probe: the job's --workers (default 64) is divided over every rank of
#          the job, rounded up (`int((args.workers + world - 1) / world)` with the project's
#          `get_world_size()`), so each rank starts at least 1 worker; its loaders are passed
#          over every epoch.
# expect:
#   T105 at 51:9 at least 1 worker per rank, restarted at each of the 90 epochs' passes
#   T105 at 53:9 the validation loader, the same share, iterated every epoch too
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_world_size():
    if not dist.is_available() or not dist.is_initialized():
        return 1
    return dist.get_world_size()


def train(loader, model, optimizer):
    for images, target in loader:
        loss = torch.nn.functional.cross_entropy(model(images.cuda()), target.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def validate(loader, model):
    with torch.no_grad():
        for images, _ in loader:
            model(images.cuda())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-j", "--workers", default=64, type=int)
    parser.add_argument("--epochs", default=90, type=int)
    parser.add_argument("--batch-size", default=256, type=int)
    args = parser.parse_args()
    dist.init_process_group(backend="nccl")
    args.batch_size = int(args.batch_size / get_world_size())
    args.workers = int((args.workers + get_world_size() - 1) / get_world_size())
    train_set = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
    val_set = TensorDataset(torch.randn(512, 64), torch.randint(0, 10, (512,)))
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler,
        num_workers=args.workers, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=256, shuffle=False,
        num_workers=args.workers, pin_memory=True)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        train(train_loader, model, optimizer)
        validate(val_loader, model)


if __name__ == "__main__":
    main()
