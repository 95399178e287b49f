# stagec fixture: neg_s17_loader_remade_each_epoch_by_its_builder
# named: on the command line (`deepspeed --num_gpus 8 train.py`)
# context: a fine-tuning script whose data comes in one file per epoch: a builder makes the
#          dataset and its loader for an epoch, and the epoch loop calls it again at every epoch
#          after the first. Each loader is passed over once; persistent_workers could keep
#          nothing, since every epoch has a new loader.
# expect: none
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset


class EpochDataset(TensorDataset):
    def __init__(self, filename, rank, num_replicas):
        super().__init__(torch.randn(1024, 64), torch.randint(0, 10, (1024,)))
        self.filename = filename
        self.rank = rank
        self.num_replicas = num_replicas


def create_dataset_and_dataloader(args, epoch):
    filename = f"{args.data_prefix}.{epoch}.parquet"
    dataset = EpochDataset(filename, rank=dist.get_rank(), num_replicas=dist.get_world_size())
    dataloader = DataLoader(dataset, batch_size=None, num_workers=1, prefetch_factor=8, pin_memory=True)
    return dataset, dataloader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_prefix", type=str, required=True)
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    dist.init_process_group(backend="nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    train_dataset, train_loader = create_dataset_and_dataloader(args, 0)
    for epoch in range(args.epochs):
        if epoch != 0:
            del train_dataset, train_loader
            train_dataset, train_loader = create_dataset_and_dataloader(args, epoch)
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
