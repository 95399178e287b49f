# stagec fixture: s31 neg_flag_count_replaced_on_the_namespace (issue 22, class 9; the look-alike of
#   pos_s31_flag_count_kept_by_data_module whose script replaces the count on the parsed arguments
#   before the data module takes it: the flag's default is not the run's value)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect: nothing
# ----
from argparse import ArgumentParser

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class DataModule:
    def __init__(self, dataset, num_workers):
        self.dataset = dataset
        self.num_workers = num_workers

    def train_loader(self, sampler):
        return DataLoader(self.dataset, batch_size=32, sampler=sampler, num_workers=self.num_workers)


def main():
    parser = ArgumentParser()
    parser.add_argument("--num_workers", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    args.num_workers = min(args.num_workers, torch.get_num_threads() // 8)
    data = DataModule(torch.utils.data.TensorDataset(torch.randn(1024, 8)), args.num_workers)
    sampler = DistributedSampler(data.dataset)
    loader = data.train_loader(sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x.sum()


if __name__ == "__main__":
    main()
