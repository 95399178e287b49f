# stagec fixture: s27 pos_loader_timed_by_espnet_reporter (issue 22, class 9; UniAudio's shape,
#                 from ESPnet: each epoch's loop passes over the loader through
#                 `reporter.measure_iter_time(train_dl, "iter_time")`, on a reporter handed in from
#                 a `with` block, which yields the loader's batches)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T105 at 38:65 num_workers=args.n_worker = 4, passed over every epoch through the reporter
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from espnet2.train.reporter import Reporter


def train_one_epoch(model, train_dl, optimizer, reporter):
    for b_idx, (x,) in enumerate(reporter.measure_iter_time(train_dl, "iter_time"), 1):
        optimizer.zero_grad()
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
        reporter.register({"loss": loss.item()})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_worker", type=int, default=4)
    parser.add_argument("--n_epoch", type=int, default=50)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 8))
    sampler = DistributedSampler(data)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    reporter = Reporter()
    train_dl = DataLoader(data, batch_size=32, sampler=sampler, num_workers=args.n_worker)
    for ep in range(1, args.n_epoch + 1):
        sampler.set_epoch(ep)
        reporter.set_epoch(ep)
        with reporter.observe("train") as sub_reporter:
            train_one_epoch(model, train_dl, optimizer, sub_reporter)


if __name__ == "__main__":
    main()
