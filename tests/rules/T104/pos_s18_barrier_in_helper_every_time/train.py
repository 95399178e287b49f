# stagec fixture: s18 pos_barrier_in_helper_every_time (issue 22, class 2; the twin of
#                 neg_s18_barrier_in_search_fallback: the timestamp, with its barrier, is
#                 taken under a test that is no search's fallback)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group)
# expect:
#   T104 at 36:18 rank 0 alone reaches the barrier in `local_time()` through `make_writer`.
# ----
import datetime
import logging
import os

import torch
import torch.distributed as dist
from torch.utils.tensorboard import SummaryWriter


def local_time():
    dist.barrier()
    return datetime.datetime.now().strftime("%b-%d-%Y_%H-%M-%S")


def make_writer(logger):
    name = logger.name
    if name == "train":
        name = "model-{}".format(local_time())
    return SummaryWriter(os.path.join("log_tensorboard", name))


def main():
    dist.init_process_group("nccl")
    logger = logging.getLogger("train")
    logger.addHandler(logging.FileHandler("train-{}.log".format(local_time())))
    writer = None
    if dist.get_rank() == 0:
        writer = make_writer(logger)
    model = torch.nn.Linear(4, 1)
    for step in range(10):
        loss = model(torch.randn(2, 4)).sum()
        loss.backward()
        if writer is not None:
            writer.add_scalar("loss", loss.item(), step)


if __name__ == "__main__":
    main()
