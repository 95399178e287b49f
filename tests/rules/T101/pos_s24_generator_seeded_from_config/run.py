# stagec fixture: s24 pos_generator_seeded_from_config (issue 22, class 3; review 32b's pangaea:
#                 the loader gets the reproducibility recipe's generator, seeded with the run's
#                 configured seed on every rank, and 4 workers whose dataset crops at random)
# named: on the command line (`torchrun --nproc_per_node 8 run.py`)
# expect:
#   T101 at 39:33 worker k of every rank gets the same base seed from `cfg.seed`.
# ----
import random

import hydra
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from utils.utils import get_generator, seed_worker


class Patches(Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        x = random.randint(0, 64)
        return torch.full((3,), float(x + i))


@hydra.main(version_base=None, config_path="configs", config_name="train")
def main(cfg):
    dist.init_process_group("nccl")
    train_dataset = Patches()
    train_loader = DataLoader(
        train_dataset,
        sampler=DistributedSampler(train_dataset),
        batch_size=cfg.batch_size,
        num_workers=4,
        persistent_workers=True,
        worker_init_fn=seed_worker,
        generator=get_generator(cfg.seed),
        drop_last=True,
    )
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 1).cuda())
    for epoch in range(cfg.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x in train_loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    main()
