# stagec fixture: pos_s14_prefetcher_reset_each_epoch (BasicSR's shape)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: a prefetcher holds the loader and starts it over in reset(), called at the top of
#          every epoch; the epoch's steps run in a while loop until the prefetcher runs dry.
#          Nothing tells the sampler the epoch.
# expect:
#   T102 at 43:15 the sampler whose epoch is never set
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class CPUPrefetcher:
    def __init__(self, loader):
        self.ori_loader = loader
        self.loader = iter(loader)

    def next(self):
        try:
            return next(self.loader)
        except StopIteration:
            return None

    def reset(self):
        self.loader = iter(self.ori_loader)


def train_step(model, opt, batch):
    x, y = batch
    loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()


def main(epochs=10):
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.AdamW(model.parameters())
    dataset = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=32, num_workers=4, persistent_workers=True)
    prefetcher = CPUPrefetcher(loader)
    for epoch in range(epochs):
        prefetcher.reset()
        batch = prefetcher.next()
        while batch is not None:
            train_step(model, opt, batch)
            batch = prefetcher.next()


if __name__ == "__main__":
    main()
