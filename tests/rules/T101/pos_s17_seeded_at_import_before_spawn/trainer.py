# stagec fixture: pos_s17_seeded_at_import_before_spawn
# named: on the command line (`python trainer.py -c config.yaml`, one process per GPU by mp.spawn)
# context: neg_s17_seeded_in_main_block_before_spawn, but the seed is set at the module's top
#          level: each spawned rank imports the module and runs it again, so every rank starts
#          from the same seed and draws the same noise at each step.
# expect:
#   T101 at 16:1 every rank seeds alike on import and draws `torch.randn` at each step
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

torch.manual_seed(1234)


def train(rank, args, seed):
    dist.init_process_group("nccl", init_method="tcp://localhost:54321", world_size=args.num_gpus, rank=rank)
    torch.cuda.manual_seed(seed)
    data = TensorDataset(torch.randn(4096, 80))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=16, sampler=sampler)
    generator = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(144, 80).cuda(), device_ids=[rank])
    optimizer = torch.optim.AdamW(generator.parameters(), lr=2e-4)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (mel,) in loader:
            noise = torch.randn(mel.size(0), 64).to(rank)
            fake = generator(torch.cat([mel.to(rank), noise], dim=1))
            loss = (fake - mel.to(rank)).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    args.num_gpus = torch.cuda.device_count()
    mp.spawn(train, nprocs=args.num_gpus, args=(args, args.seed))
