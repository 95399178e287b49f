# stagec fixture: s32 pos_merged_config_rebinds_its_name (issue 22, class 9; review 43b's OpenLRM: the
#                 config is loaded from the YAML file the command line names, then merged with the
#                 command-line overrides back into the same name, `cfg = OmegaConf.merge(cfg, cli)`)
# named: on the command line (`torchrun --nproc_per_node 8 train.py --config configs/train.yaml`)
# expect:
#   T105 at 40:13 num_workers=2 from configs/train.yaml, persistent_workers=False, one pass per epoch
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
