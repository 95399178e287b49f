# stagec fixture: s19 neg_kept_loader_validated_once (issue 22, class 9; the twin of
#                 pos_s19_validation_method_reads_the_kept_loader: `validation()` reads
#                 `self.val_loader`, but only once, after the training loop)
# named: on the command line (a segmentation trainer)
# runtime: multi-rank (init_process_group)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils import data


class Trainer(object):
    def __init__(self, args, train_set, val_set, model):
        self.args = args
        train_sampler = data.distributed.DistributedSampler(train_set)
        batches = data.BatchSampler(train_sampler, args.batch_size, drop_last=True)
        self.train_loader = data.DataLoader(
            dataset=train_set,
            batch_sampler=batches,
            num_workers=args.workers,
            pin_memory=True,
            persistent_workers=True,
        )
        val_sampler = data.distributed.DistributedSampler(val_set, shuffle=False)
        self.val_loader = data.DataLoader(
            dataset=val_set,
            batch_size=1,
            sampler=val_sampler,
            pin_memory=True,
            num_workers=args.workers,
        )
        self.model = torch.nn.parallel.DistributedDataParallel(model)

    def train(self):
        iteration = 0
        for images, targets in self.train_loader:
            iteration += 1
            loss = self.model(images).sum()
            loss.backward()
        self.validation()

    def validation(self):
        self.model.eval()
        with torch.no_grad():
            for image, target in self.val_loader:
                self.model(image)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--val-every", type=int, default=500)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    trainer = Trainer(args, torch.randn(100, 3), torch.randn(10, 3), torch.nn.Linear(3, 3))
    trainer.train()


if __name__ == "__main__":
    main()
