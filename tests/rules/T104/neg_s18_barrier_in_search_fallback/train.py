# stagec fixture: s18 neg_barrier_in_search_fallback (issue 22, class 2; review 22b's PixelRec
#                 REC/trainer/trainer.py:42: rank 0 makes its TensorBoard writer, whose
#                 directory falls back to a timestamp (taken after a barrier) only when no
#                 handler of the logger writes to a file)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group)
# expect: nothing: the logger is given a file handler, so the search finds it and the fallback
#         is not known to run.
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
    name = None
    for handler in logger.handlers:
        if hasattr(handler, "baseFilename"):
            name = os.path.basename(handler.baseFilename).split(".")[0]
            break
    if name is None:
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
