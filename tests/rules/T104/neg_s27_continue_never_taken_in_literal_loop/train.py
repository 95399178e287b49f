# stagec fixture: s27 neg_continue_never_taken_in_literal_loop (issue 22, class 2; VISTA's shape:
#                 validation runs over `for val_times in [0]:`, and rank 0's `if val_times > 0:
#                 continue` before the barrier is never taken, since the loop's one value is 0)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def run(model, loaders, world_size, epochs=10):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    best = float("inf")
    for epoch in range(epochs):
        loaders["train"].sampler.set_epoch(epoch)
        for (x,) in loaders["train"]:
            optimizer.zero_grad()
            model(x.cuda()).sum().backward()
            optimizer.step()
        for val_times in [0]:
            with torch.no_grad():
                metric = sum(model.module(x.cuda()).sum().item() for (x,) in loaders["val"])
            if world_size == 1 or dist.get_rank() == 0:
                if val_times > 0:
                    continue
                if metric < best:
                    best = metric
                    torch.save(model.module.state_dict(), "best.pt")
            if world_size > 1:
                dist.barrier()


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 8))
    loaders = {
        "train": DataLoader(data, batch_size=32, sampler=DistributedSampler(data)),
        "val": DataLoader(data, batch_size=32, sampler=DistributedSampler(data, shuffle=False)),
    }
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    run(model, loaders, dist.get_world_size())


if __name__ == "__main__":
    main()
