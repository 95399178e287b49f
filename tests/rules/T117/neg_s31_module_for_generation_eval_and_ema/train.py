# stagec fixture: s31 neg_module_for_generation_eval_and_ema (issue 22, class "other": the wrapped
#   module used where DDP has nothing to do: sampling and evaluation with gradients off, an EMA copy
#   of its weights, its state dict, a detached teacher pass; the training forward goes through the
#   wrapper)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
import copy
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


@torch.no_grad()
def evaluate(model, loader):
    total = 0.0
    for (x,) in loader:
        total += model.module(x.cuda()).mean().item()
    return total


@torch.no_grad()
def update_ema(ema, model, decay=0.999):
    for e, p in zip(ema.parameters(), model.module.parameters()):
        e.mul_(decay).add_(p, alpha=1 - decay)


def train(model, ema, loader, optimizer):
    for (x,) in loader:
        x = x.cuda()
        with torch.no_grad():
            samples = model.module.generate(x)
        teacher = model.module(x).detach()
        out = model(x)
        loss = (out - teacher).pow(2).mean() + out.mean() * samples.float().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        update_ema(ema, model)


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    net = torch.nn.Linear(16, 16).cuda(rank)
    ema = copy.deepcopy(net)
    model = DDP(net, device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 16)), batch_size=16)
    for epoch in range(10):
        train(model, ema, loader, optimizer)
        evaluate(model, loader)
        if rank == 0:
            torch.save(model.module.state_dict(), "last.pt")


if __name__ == "__main__":
    main()
