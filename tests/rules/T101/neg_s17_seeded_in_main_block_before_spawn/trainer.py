# stagec fixture: neg_s17_seeded_in_main_block_before_spawn
# named: on the command line (`python trainer.py -c config.yaml`, one process per GPU by mp.spawn)
# context: a vocoder GAN's launcher seeds torch in its `if __name__ == "__main__":` block, then
#          starts the ranks with `mp.spawn`. Each rank is a new interpreter that imports this
#          module without running that block: its torch RNG starts from a seed of its own, so
#          the noise each step draws differs between ranks (the ranks seed only CUDA).
# expect: none
# ----
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

torch.backends.cudnn.benchmark = False


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
    torch.manual_seed(args.seed)
    args.num_gpus = torch.cuda.device_count()
    mp.spawn(train, nprocs=args.num_gpus, args=(args, args.seed))
