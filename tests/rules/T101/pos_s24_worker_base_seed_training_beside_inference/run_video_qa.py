# stagec fixture: s24 pos_worker_base_seed_training_beside_inference (issue 22, class 3; review
#                 31a's ClipBERT: one script seeds alike in `start_training()` and in
#                 `start_inference()`, and both build the loaders through one helper)
# named: on the command line (`horovodrun -np 8 python run_video_qa.py`)
# expect:
#   T101 at 52:5 the training path's `set_random_seed(cfg.seed)`: worker k of every rank draws
#        the same clip offsets; not the helper's `torch.manual_seed`, and not the inference call.
# ----
import argparse
import random

import horovod.torch as hvd
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from misc import set_random_seed


class VideoQA(Dataset):
    def __init__(self, n, strategy):
        self.n = n
        self.strategy = strategy

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        start = random.randint(0, 32) if self.strategy == "rand" else 0
        return torch.full((4,), float(start + i))


def mk_loader(cfg, is_train):
    dataset = VideoQA(1000, cfg.frm_sampling_strategy if is_train else "middle")
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=is_train)
    return DataLoader(
        dataset,
        batch_size=cfg.batch_size,
        sampler=sampler,
        num_workers=cfg.n_workers,
        pin_memory=True,
        persistent_workers=True,
    )


def setup_dataloaders(cfg):
    return mk_loader(cfg, True), mk_loader(cfg, False)


def start_training(cfg):
    hvd.init()
    set_random_seed(cfg.seed)
    model = torch.nn.Linear(4, 2).cuda()
    optimizer = hvd.DistributedOptimizer(torch.optim.AdamW(model.parameters(), lr=1e-4))
    train_loader, val_loader = setup_dataloaders(cfg)
    for epoch in range(cfg.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x in train_loader:
            loss = model(x.cuda()).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def start_inference(cfg):
    hvd.init()
    set_random_seed(cfg.seed)
    train_loader, val_loader = setup_dataloaders(cfg)
    for x in val_loader:
        pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--n_workers", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--frm_sampling_strategy", type=str, default="rand")
    parser.add_argument("--do_inference", action="store_true")
    args = parser.parse_args()
    if args.do_inference:
        start_inference(args)
    else:
        start_training(args)
