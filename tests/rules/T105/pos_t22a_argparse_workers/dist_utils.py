# stagec fixture: t22a pos_argparse_workers (helper module)
# named: on the command line with train.py and logging_utils.py
# expect: none in this file (it sets up the process group train.py relies on)
# ----
import os

import torch
import torch.distributed as dist


def setup(args):
    args.local = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")
    torch.cuda.set_device(args.local)
