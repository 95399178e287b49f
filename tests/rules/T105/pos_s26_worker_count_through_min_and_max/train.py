# stagec fixture: s26 pos_worker_count_through_min_and_max (issue 22, class 9; BiRefNet's
#                 shape: the count is `min(config.num_workers, batch_size)`, the config's own
#                 count `max(4, self.batch_size)`: 8 workers per rank, restarted every epoch)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`), with config.py
# expect:
#   T105 at 21:78 min(config.num_workers, batch_size) = min(max(4, 8), 8) = 8 workers
# ----
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from config import Config

config = Config()


def prepare_dataloader(dataset, batch_size):
    return DataLoader(
        dataset, batch_size=batch_size, sampler=DistributedSampler(dataset), num_workers=min(config.num_workers, batch_size)
    )


def main():
    dist.init_process_group("nccl")
    device = int(os.environ["LOCAL_RANK"])
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).to(device), device_ids=[device])
    optimizer = torch.optim.AdamW(model.parameters())
    loader = prepare_dataloader(TensorDataset(torch.randn(512, 8), torch.randn(512, 1)), config.batch_size)
    for epoch in range(config.epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
