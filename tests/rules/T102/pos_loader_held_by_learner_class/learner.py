# stagec fixture: pos_loader_held_by_learner_class (issue 22, class 3: "samplers built across files";
#   a vocoder's learner class takes the loader in its constructor and loops over it for ever)
# named: on the command line (`learner.py` and `data.py`, as pre-commit passes them)
# runtime: multi-rank (mp.spawn of `train_distributed`, init_process_group, DDP)
# expect: none here (the sampler is built in data.py)
# ----
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

from data import from_folder


class Learner:
    def __init__(self, model_dir, model, loader, optimizer, *args, **kwargs):
        os.makedirs(model_dir, exist_ok=True)
        self.model = model
        self.loader = loader
        self.optimizer = optimizer
        self.step = 0
        self.is_master = True

    def train(self, max_steps=None):
        while True:
            for audio in self.loader:
                if max_steps is not None and self.step >= max_steps:
                    return
                loss = self.model(audio.cuda()).square().mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.step += 1


def train_distributed(replica_id, replica_count, data_dir):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "29500"
    dist.init_process_group("nccl", rank=replica_id, world_size=replica_count)
    loader = from_folder(data_dir, is_distributed=True)
    model = DistributedDataParallel(torch.nn.Conv1d(1, 1, 3).cuda(replica_id), device_ids=[replica_id])
    learner = Learner("runs", model, loader, torch.optim.Adam(model.parameters()), fp16=False)
    learner.train(max_steps=100_000)


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(train_distributed, args=(n, "wavs"), nprocs=n, join=True)
