# stagec fixture: t22c_neg_random_split_with_generator
# named: on the command line (a torchrun script, as pre-commit passes it)
# context: no experiment config; the script joins the process group, holds out 5% of the corpus
#          with random_split and shards the rest with a DistributedSampler. Nothing seeds the
#          global torch RNG, but the split has its own generator seeded with the same constant
#          on every rank (the same split everywhere, as it must be).
# expect: none.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset, random_split


def corpus(n: int) -> TensorDataset:
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(n, 32, generator=g)
    return TensorDataset(x, x.sum(dim=1, keepdim=True))


def evaluate(model: nn.Module, data) -> float:
    with torch.no_grad():
        return sum(float(nn.functional.mse_loss(model(x), y)) for x, y in DataLoader(data, batch_size=256))


def main() -> None:
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    data = corpus(10_000)
    held = len(data) // 20
    train_part, held_out = random_split(data, [len(data) - held, held], generator=torch.Generator().manual_seed(7))
    sampler = DistributedSampler(train_part)
    loader = DataLoader(train_part, batch_size=64, sampler=sampler)
    model = nn.parallel.DistributedDataParallel(nn.Linear(32, 1).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for x, y in loader:
            opt.zero_grad()
            nn.functional.mse_loss(model(x.cuda()), y.cuda()).backward()
            opt.step()
        if dist.get_rank() == 0:
            print(epoch, evaluate(model.module.cpu(), held_out))
            model.module.cuda()


if __name__ == "__main__":
    main()
