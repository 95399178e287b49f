# stagec fixture: neg_s17_epoch_told_engine_shared_with_another_script (the training script)
# named: on the command line with engine.py and benchmark.py
# expect: none in this file
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from engine import train_one_epoch


def main():
    dist.init_process_group("nccl")
    dataset_train = TensorDataset(torch.randn(1000, 8), torch.randint(0, 10, (1000,)))
    sampler_train = DistributedSampler(dataset_train)
    data_loader_train = DataLoader(dataset_train, sampler=sampler_train, batch_size=8)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 10).cuda())
    optimizer = torch.optim.AdamW(model.parameters())
    for epoch in range(50):
        sampler_train.set_epoch(epoch)
        train_one_epoch(model, data_loader_train, optimizer)


if __name__ == "__main__":
    main()
