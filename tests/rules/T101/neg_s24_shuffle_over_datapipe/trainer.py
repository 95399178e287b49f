# stagec fixture: s24 neg_shuffle_over_datapipe (issue 22, class 3; review 31a's mistral: a
#                 Trainer subclass hands an iterable DataPipe to a shuffling DataLoader; torch
#                 shares one shuffle seed across the ranks for a DataPipe and shards after the
#                 shuffle, so the equal draw is the loader's design)
# named: on the command line (`deepspeed --num_gpus 8 trainer.py`)
# expect: nothing
# ----
import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.datapipes.iter import IterableWrapper
from torch.utils.data import IterDataPipe


class OnlineTrainer:
    def __init__(self, model, train_dataset, batch_size, num_workers):
        self.model = model
        self.train_dataset = train_dataset
        self.batch_size = batch_size
        self.num_workers = num_workers

    def get_train_dataloader(self):
        if isinstance(self.train_dataset, IterDataPipe):
            return DataLoader(
                self.train_dataset,
                shuffle=True,
                batch_size=self.batch_size,
                num_workers=self.num_workers,
            )
        return DataLoader(self.train_dataset, batch_size=self.batch_size)

    def train(self, epochs):
        opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        for epoch in range(epochs):
            for x in self.get_train_dataloader():
                loss = self.model(x.float().cuda()).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda())
    pipe = IterableWrapper([torch.randn(4) for _ in range(1000)]).shuffle().sharding_filter()
    OnlineTrainer(model, pipe, 8, 0).train(3)


if __name__ == "__main__":
    main()
