# stagec fixture: pos_s16_loader_class_without_persistent (entry and trainer)
# named: on the command line with loader.py (`python -m torch.distributed.launch --nproc_per_node 8`)
# context: the loaders go to a trainer as a list, which it keeps and passes over each epoch.
# expect:
#   T105 at 55:30 8 workers per rank restarted at each of the 300 epochs; no fix (the class
#        cannot take persistent_workers), the class labelled
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DistributedSampler, TensorDataset

from loader import LTRLoader


class LTRTrainer:
    def __init__(self, net, loaders, optimizer):
        self.net = net
        self.loaders = loaders
        self.optimizer = optimizer
        self.epoch = 0

    def cycle_dataset(self, loader):
        self.net.train(loader.training)
        for i, (x, y) in enumerate(loader, 1):
            loss = torch.nn.functional.cross_entropy(self.net(x.cuda()), y.cuda())
            if loader.training:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

    def train(self, max_epochs):
        for epoch in range(1, max_epochs + 1):
            self.epoch = epoch
            for loader in self.loaders:
                if self.epoch % loader.epoch_interval == 0:
                    if isinstance(loader.sampler, DistributedSampler):
                        loader.sampler.set_epoch(epoch)
                    self.cycle_dataset(loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", default=-1, type=int)
    parser.add_argument("--num_worker", default=8, type=int)
    parser.add_argument("--epochs", default=300, type=int)
    args = parser.parse_args()
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(args.local_rank)
    train_set = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
    val_set = TensorDataset(torch.randn(512, 64), torch.randint(0, 10, (512,)))
    loader_train = LTRLoader("train", train_set, training=True, batch_size=32,
                             sampler=DistributedSampler(train_set), drop_last=True,
                             num_workers=args.num_worker, stack_dim=1)
    loader_val = LTRLoader("val", val_set, training=False, batch_size=32, num_workers=0,
                           epoch_interval=5)
    net = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda(), device_ids=[args.local_rank])
    trainer = LTRTrainer(net, [loader_train, loader_val], torch.optim.SGD(net.parameters(), lr=0.01))
    trainer.train(args.epochs)


if __name__ == "__main__":
    main()
