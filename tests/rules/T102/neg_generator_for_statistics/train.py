# stagec fixture: neg_generator_for_statistics (look-alike of pos_sampler_through_generator)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP)
# expect: none: what the endless generator yields is drawn with next() only to gather feature
#   statistics (no backward pass, no optimizer step); the order of those draws changes nothing
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
    feats = []
    for i in range(iters):
        (x,) = next(loader)
        with torch.no_grad():
            feats.append(model(x.cuda()).mean(0))
    return torch.stack(feats).mean(0)


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
