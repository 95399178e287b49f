# stagec fixture: s31 pos_module_method_in_trainer (the entry script)
# named: on the command line (`torchrun --nproc_per_node 4 train.py`), with core/trainer.py
# expect: none in this file
# ----
import os

import torch
import torch.distributed as dist

from core.trainer import Trainer


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    trainer = Trainer({"local_rank": local_rank})
    for it in range(1000):
        flows = torch.randn(2, 2, 64, 64).cuda()
        masks = torch.ones(2, 1, 64, 64).cuda()
        trainer.train_step(flows, masks)


if __name__ == "__main__":
    main()
