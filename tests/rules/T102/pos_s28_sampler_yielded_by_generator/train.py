# stagec fixture: s28 pos_sampler_yielded_by_generator (issue 22, class 3; CodeReviewer's shape:
#                 a generator builds a DistributedSampler and a loader per data file and yields
#                 them; the epoch loop passes over its calls and never calls set_epoch)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T102 at 21:23 the sampler the generator yields is never told the epoch
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


def main(args):
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 1).cuda())
    optimizer = torch.optim.AdamW(model.parameters())
    for epoch in range(args.epochs):
        for _, _, train_dataloader in get_loaders(args.train_files, args):
            for batch in train_dataloader:
                loss = model(batch.cuda()).sum()
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
        _, _, valid_dataloader = next(get_loaders(args.valid_files, args, eval=True))
        for batch in valid_dataloader:
            model(batch.cuda())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--train_files", nargs="+")
    parser.add_argument("--valid_files", nargs="+")
    main(parser.parse_args())
