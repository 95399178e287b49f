# stagec fixture: s32 neg_merged_config_overridden_after (issue 22, class 9; the look-alike of
#                 pos_merged_config_rebinds_its_name: the merged config is merged once more with a
#                 mapping that sets the validation workers to 0, and that last merge wins)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --config configs/train.yaml`)
# expect:
#   nothing: the last merge sets `dataset.num_val_workers` to 0, so the loader starts no workers
# ----
import argparse

import torch
import torch.distributed as dist
from omegaconf import OmegaConf
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def parse_configs():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", type=str, default="./assets/config.yaml")
    args, unknown = parser.parse_known_args()
    cfg = OmegaConf.load(args.config)
    cli_cfg = OmegaConf.from_cli(unknown)
    cfg = OmegaConf.merge(cfg, cli_cfg)
    cfg = OmegaConf.merge(cfg, OmegaConf.create({"dataset": {"num_val_workers": 0}}))
    return cfg


class Trainer:
    def __init__(self):
        self.cfg = parse_configs()
        dist.init_process_group("nccl")
        self.model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
        self.train_loader, self.val_loader = self.build_loaders(self.cfg)

    def build_loaders(self, cfg):
        train_set = TensorDataset(torch.randn(1024, 8))
        val_set = TensorDataset(torch.randn(256, 8))
        train = DataLoader(train_set, batch_size=cfg.train.batch_size, sampler=DistributedSampler(train_set))
        val = DataLoader(
            val_set,
            batch_size=cfg.val.batch_size,
            num_workers=cfg.dataset.num_val_workers,
            persistent_workers=False,
        )
        return train, val

    def evaluate(self):
        with torch.no_grad():
            for (x,) in self.val_loader:
                self.model(x.cuda())

    def train(self):
        for epoch in range(self.cfg.train.epochs):
            self.train_loader.sampler.set_epoch(epoch)
            for (x,) in self.train_loader:
                self.model(x.cuda()).sum().backward()
            self.evaluate()


if __name__ == "__main__":
    Trainer().train()
