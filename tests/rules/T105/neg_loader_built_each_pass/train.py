# stagec fixture: neg_loader_built_each_pass (look-alike of pos_t22a_plain_ddp_job)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: none: each epoch builds its loader anew over that epoch's shard (`for x in
#   DataLoader(part, …)` inside the epoch loop, and `loader = DataLoader(…)` in the loop's body),
#   so the workers start with each new loader; persistent_workers=True would change nothing
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Subset, TensorDataset


def main():
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    data = TensorDataset(torch.randn(8192, 32), torch.randn(8192, 1))
    model = nn.parallel.DistributedDataParallel(nn.Linear(32, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(0)
    for epoch in range(20):
        order = torch.randperm(len(data), generator=g)
        part = Subset(data, order[rank::world].tolist())
        for x, y in DataLoader(part, batch_size=64, num_workers=4):
            loss = (model(x.cuda()) - y.cuda()).square().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        held = Subset(data, order[:256].tolist())
        loader = DataLoader(held, batch_size=64, num_workers=2)
        with torch.no_grad():
            for x, y in loader:
                model(x.cuda())


if __name__ == "__main__":
    main()
