# stagec fixture: s24 neg_endless_wrapper_factory_trains_unshuffled (issue 22, class 3; the
#                 look-alike of pos_s24_endless_wrapper_factory_shuffles_for_training: the
#                 script trains on the loader the factory makes without shuffling (a curriculum
#                 in file order), and only the evaluation loader shuffles; no epoch order to set)
# named: on the command line (`horovodrun -np 8 python train.py`)
# expect: nothing
#
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
    train_loader = mk_loader(cfg, is_train=False)
    val_loader = mk_loader(cfg, is_train=True)
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
