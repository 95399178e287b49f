# stagec fixture: neg_s14_validation_prefetcher (apex's ImageNet example's shape)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the validation loader's sampler shuffles (its default) and is never told the
#          epoch; validate() builds a prefetcher over it, whose constructor calls iter(), and
#          the epoch loop calls validate(). The order of an evaluation pass changes nothing.
#          (The training sampler is told the epoch.)
# expect: none
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Prefetcher:
    def __init__(self, loader):
        self.loader = iter(loader)

    def next(self):
        try:
            return next(self.loader)
        except StopIteration:
            return None


def train(loader, model, opt):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


@torch.no_grad()
def validate(loader, model):
    prefetcher = Prefetcher(loader)
    batch = prefetcher.next()
    total = 0.0
    while batch is not None:
        x, y = batch
        total += nn.functional.mse_loss(model(x.cuda()), y.cuda()).item()
        batch = prefetcher.next()
    return total


def main(epochs=10):
    dist.init_process_group("nccl")
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.AdamW(model.parameters())
    train_set = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
    val_set = TensorDataset(torch.randn(512, 8), torch.randn(512, 1))
    train_sampler = DistributedSampler(train_set)
    val_sampler = DistributedSampler(val_set)
    train_loader = DataLoader(train_set, sampler=train_sampler, batch_size=32)
    val_loader = DataLoader(val_set, sampler=val_sampler, batch_size=32)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        train(train_loader, model, opt)
        validate(val_loader, model)


if __name__ == "__main__":
    main()
