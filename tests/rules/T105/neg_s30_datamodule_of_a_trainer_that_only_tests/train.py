# stagec fixture: neg_s30_datamodule_of_a_trainer_that_only_tests (issue 22, class 9's look-alike:
#   torch-quiver's MAG240M benchmark: the ranks train in their own mp.spawn loop, and the Lightning
#   Trainer is built only to test a checkpoint, so nothing asks for the data module's training
#   and validation loaders)
# named: on the command line (mp.spawn script; `--evaluate` runs the Trainer's test)
# runtime: multi-rank (mp.spawn, init_process_group, DDP)
# expect: nothing (no Trainer fits or validates: train_dataloader() and val_dataloader() never run)
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from pytorch_lightning import LightningDataModule, Trainer
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader


class Papers(LightningDataModule):
    def __init__(self, train_set, val_set, test_set):
        super().__init__()
        self.train_set, self.val_set, self.test_set = train_set, val_set, test_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=1024, shuffle=True, num_workers=4)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=1024, num_workers=2)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=1024, num_workers=2)


def run(rank, world_size, train_set):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    ids = torch.arange(len(train_set)).split(len(train_set) // world_size)[rank]
    model = DistributedDataParallel(torch.nn.Linear(128, 10).to(rank), device_ids=[rank])
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(10):
        for i in ids.split(1024):
            x, y = train_set[i]
            loss = torch.nn.functional.cross_entropy(model(x.to(rank)), y.to(rank))
            opt.zero_grad()
            loss.backward()
            opt.step()
        dist.barrier()


def main(model, train_set, val_set, test_set):
    parser = argparse.ArgumentParser()
    parser.add_argument("--evaluate", action="store_true")
    args = parser.parse_args()
    world = torch.cuda.device_count()
    if not args.evaluate:
        mp.spawn(run, args=(world, train_set), nprocs=world, join=True)
    else:
        trainer = Trainer(gpus=1)
        trainer.test(model=model, datamodule=Papers(train_set, val_set, test_set))


if __name__ == "__main__":
    main(None, None, None, None)
