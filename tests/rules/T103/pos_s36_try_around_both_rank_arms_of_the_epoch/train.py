# stagec fixture: pos_s36_try_around_both_rank_arms_of_the_epoch (issue 22, review 38a: MeloTTS's train.py; look-alike of neg_s36_try_around_collective_kept_to_main_process)
# named: on the command line (`torchrun --nproc_per_node 4 train.py`)
# runtime: multi-rank (init_process_group, DDP)
# expect: T103 at 49:9
#   rank 0 runs the epoch with its logger, the other ranks without, each in
#   an arm of `if rank == 0:`. The `else` arm's epoch runs the DDP backward
#   on every other rank, so an error that the handler swallows there leaves
#   that rank's epoch part-way while the others wait in the gradient
#   all-reduce.
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def train_and_evaluate(rank, epoch, net, optim, loader, logger):
    loader.sampler.set_epoch(epoch)
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(net(x.cuda(rank)), y.cuda(rank))
        optim.zero_grad()
        loss.backward()
        optim.step()
        if logger is not None:
            logger.info(f"epoch {epoch} loss {loss.item():.4f}")


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    data = TensorDataset(torch.randn(1024, 80), torch.randn(1024, 80))
    loader = DataLoader(data, batch_size=16, sampler=DistributedSampler(data))
    net = DDP(torch.nn.Linear(80, 80).cuda(rank), device_ids=[rank])
    optim = torch.optim.AdamW(net.parameters(), lr=2e-4)
    logger = None
    if rank == 0:
        import logging

        logger = logging.getLogger("train")
    for epoch in range(1, 100):
        try:
            if rank == 0:
                train_and_evaluate(rank, epoch, net, optim, loader, logger)
            else:
                train_and_evaluate(rank, epoch, net, optim, loader, None)
        except Exception as e:
            print(e)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
