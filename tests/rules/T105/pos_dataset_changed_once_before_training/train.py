# stagec fixture: pos_dataset_changed_once_before_training (issue 22, class 9: Vim's and DeiT's shape)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DistributedSampler, DDP)
# expect:
#   T105 at 33:9 the training loader's 10 workers (argparse default), restarted at each of the 300
#        epochs: the one change to its dataset (`loader.dataset.transform = …`) is made once, before
#        training, so workers kept alive would see it too. Fix: persistent_workers=True (33:35).
# ----
import argparse

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class Augmented(TensorDataset):
    transform = None

    def __getitem__(self, i):
        x, y = super().__getitem__(i)
        return (self.transform(x) if self.transform else x), y


def main(args):
    dist.init_process_group("nccl")
    data = Augmented(torch.randn(4096, 16), torch.randn(4096, 1))
    sampler = DistributedSampler(data)
    loader = DataLoader(
        data,
        sampler=sampler,
        batch_size=64,
        num_workers=args.num_workers,
        drop_last=True,
    )
    if args.three_augment:
        loader.dataset.transform = torch.nn.Dropout(0.1)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_workers", default=10, type=int)
    parser.add_argument("--epochs", default=300, type=int)
    parser.add_argument("--three_augment", action="store_true")
    main(parser.parse_args())
