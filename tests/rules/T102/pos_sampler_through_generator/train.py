# stagec fixture: pos_sampler_through_generator (issue 22, class 3: stylegan2-pytorch's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect:
#   T102 at 18:16 the helper's DistributedSampler (shuffle=True at its one call site) feeds a loader
#        that an endless generator passes over again and again (`while True: for batch in loader:
#        yield batch`); the training loop draws from it with next() and steps the optimizer, and
#        no set_epoch is ever called: every pass repeats the first pass's order on every rank.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils import data


def data_sampler(dataset, shuffle, distributed):
    if distributed:
        return data.distributed.DistributedSampler(dataset, shuffle=shuffle)
    if shuffle:
        return data.RandomSampler(dataset)
    return data.SequentialSampler(dataset)


def sample_data(loader):
    while True:
        for batch in loader:
            yield batch


def train(loader, model, opt, iters):
    loader = sample_data(loader)
    for i in range(iters):
        (x,) = next(loader)
        loss = model(x.cuda()).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    dist.init_process_group("nccl")
    dataset = data.TensorDataset(torch.randn(10000, 8))
    loader = data.DataLoader(
        dataset,
        batch_size=16,
        sampler=data_sampler(dataset, shuffle=True, distributed=True),
        drop_last=True,
    )
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 1).cuda())
    opt = torch.optim.Adam(model.parameters())
    train(loader, model, opt, 100000)


if __name__ == "__main__":
    main()
