# stagec fixture: neg_s14_iterator_made_once
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the iterator is made once, outside the step loop, over fewer steps than a pass
#          holds: the loader is never started over, so no pass repeats another.
# expect: none
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main(num_steps=100):
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.AdamW(model.parameters())
    dataset = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank())
    loader = DataLoader(dataset, sampler=sampler, batch_size=32, num_workers=4, persistent_workers=True)
    it = iter(loader)
    for step in range(num_steps):
        x, y = next(it)
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
