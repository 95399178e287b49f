# stagec fixture: s28 neg_sampler_yielded_and_told_epoch (issue 22, class 3; the look-alikes of
#                 pos_s28_sampler_yielded_by_generator)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
#   - the loop takes the sampler the generator yields and calls its set_epoch;
#   - a generator yielding the loader alone: the loop calls `loader.sampler.set_epoch(epoch)`.
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler


def get_loaders(data_files, args, eval=False):
    for data_file in data_files:
        dataset = torch.load(data_file)
        if eval:
            sampler = SequentialSampler(dataset)
        else:
            sampler = DistributedSampler(dataset)
        dataloader = DataLoader(dataset, sampler=sampler, batch_size=args.batch_size, num_workers=0)
        yield dataset, sampler, dataloader


def loaders_of(data_files, args):
    for data_file in data_files:
        dataset = torch.load(data_file)
        sampler = DistributedSampler(dataset)
        yield DataLoader(dataset, sampler=sampler, batch_size=args.batch_size)


def main(args):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
    optimizer = torch.optim.AdamW(model.parameters())
    for epoch in range(args.epochs):
        for _, sampler, train_dataloader in get_loaders(args.train_files, args):
            sampler.set_epoch(epoch)
            for batch in train_dataloader:
                loss = model(batch.cuda()).sum()
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        for loader in loaders_of(args.extra_files, args):
            loader.sampler.set_epoch(epoch)
            for batch in loader:
                model(batch.cuda()).sum().backward()
        _, _, valid_dataloader = next(get_loaders(args.valid_files, args, eval=True))
        for batch in valid_dataloader:
            model(batch.cuda())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--train_files", nargs="+")
    parser.add_argument("--valid_files", nargs="+")
    parser.add_argument("--extra_files", nargs="+")
    main(parser.parse_args())
