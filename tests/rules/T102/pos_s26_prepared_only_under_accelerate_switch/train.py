# stagec fixture: s26 pos_prepared_only_under_accelerate_switch (issue 22, class 3; BiRefNet's
#                 shape: `--dist True` runs torchrun with a DistributedSampler, `--use_accelerate`
#                 runs `accelerate launch` and prepares the loader; only the second is told the
#                 epoch by Accelerate)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --dist True`)
# expect:
#   T102 at 41:21 the DistributedSampler of the `--dist` runs, whose loader Accelerate
#        prepares only under `if args.use_accelerate:`
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", default=120, type=int)
parser.add_argument("--dist", default=False, type=lambda x: x == "True")
parser.add_argument("--use_accelerate", action="store_true")
args = parser.parse_args()

if args.use_accelerate:
    from accelerate import Accelerator

    accelerator = Accelerator()
    args.dist = False

if args.dist:
    dist.init_process_group("nccl")
    device = int(os.environ["LOCAL_RANK"])
else:
    device = 0


def prepare_dataloader(dataset, batch_size, to_be_distributed=False):
    if to_be_distributed:
        return DataLoader(
            dataset, batch_size=batch_size, shuffle=False,
            sampler=DistributedSampler(dataset), drop_last=True,
        )
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)


class Trainer:
    def __init__(self, loader, model, optimizer):
        self.train_loader, self.model, self.optimizer = loader, model, optimizer
        if args.use_accelerate:
            self.train_loader, self.model, self.optimizer = accelerator.prepare(
                self.train_loader, self.model, self.optimizer
            )

    def train_epoch(self, epoch):
        for x, y in self.train_loader:
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            if args.use_accelerate:
                accelerator.backward(loss)
            else:
                loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()


def main():
    model = torch.nn.Linear(8, 1).to(device)
    if args.dist:
        model = DDP(model, device_ids=[device])
    data = TensorDataset(torch.randn(1024, 8), torch.randn(1024, 1))
    trainer = Trainer(
        prepare_dataloader(data, 32, to_be_distributed=args.dist),
        model,
        torch.optim.AdamW(model.parameters(), lr=1e-3),
    )
    for epoch in range(1, args.epochs + 1):
        trainer.train_epoch(epoch)


if __name__ == "__main__":
    main()
