# stagec fixture: neg_s14_for_over_iter_once
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: one pass over `iter(loader)` in a run without epochs: nothing repeats.
# expect: none
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.AdamW(model.parameters())
    dataset = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    for x, y in iter(loader):
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
