# stagec fixture: s24 pos_endless_wrapper_factory_shuffles_for_training (issue 22, class 3;
#                 review 31a's ClipBERT: a loader factory shuffles its DistributedSampler only
#                 for the training call (`shuffle=is_train`), and the training loop runs over an
#                 endless iterator that starts the prefetched loader over each time it runs out;
#                 nothing calls set_epoch)
# named: on the command line (`horovodrun -np 8 python train.py`)
# expect:
#   T102 at 23:15 every restart of the training loader repeats the first pass's order.
# ----
import argparse

import horovod.torch as hvd
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from loaders import InfiniteIterator, PrefetchLoader


def mk_loader(cfg, is_train):
    dataset = TensorDataset(torch.randn(1000, 4))
    batch_size = cfg.train_batch_size if is_train else cfg.val_batch_size
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=is_train)
    return DataLoader(dataset, batch_size=batch_size, shuffle=False, sampler=sampler, num_workers=0)


def setup_dataloaders(cfg):
    train_loader = mk_loader(cfg, is_train=True)
    val_loader = mk_loader(cfg, is_train=False)
    return PrefetchLoader(train_loader), PrefetchLoader(val_loader)


def main(cfg):
    hvd.init()
    model = torch.nn.Linear(4, 1).cuda()
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1))
    train_loader, val_loader = setup_dataloaders(cfg)
    for step, (x,) in enumerate(InfiniteIterator(train_loader)):
        loss = model(x.cuda()).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step >= cfg.num_train_steps:
            break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--train_batch_size", type=int, default=32)
    parser.add_argument("--val_batch_size", type=int, default=64)
    parser.add_argument("--num_train_steps", type=int, default=100000)
    main(parser.parse_args())
