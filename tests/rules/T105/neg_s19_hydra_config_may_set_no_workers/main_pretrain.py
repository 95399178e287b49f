# stagec fixture: s19 neg_hydra_config_may_set_no_workers (issue 22, class 9; the twin of
#                 pos_s19_hydra_config_through_default_helpers: one of the project's YAML
#                 configs that Hydra may compose sets `num_workers: 0`, so the run may start no
#                 workers at all)
# named: on the command line (the entry script; its helpers are imported)
# runtime: multi-rank (init_process_group)
# expect: nothing
# ----
import hydra
import torch
import torch.distributed as dist
from omegaconf import DictConfig, OmegaConf
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from solo.args.pretrain import parse_cfg
from solo.data.prefetch import to_device


@hydra.main(version_base="1.2")
def main(cfg: DictConfig):
    OmegaConf.set_struct(cfg, False)
    cfg = parse_cfg(cfg)
    dist.init_process_group("nccl")
    dataset = TensorDataset(torch.randn(1024, 3, 32, 32))
    loader = prepare_dataloader(dataset, batch_size=cfg.optimizer.batch_size, num_workers=cfg.data.num_workers)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Flatten())
    for epoch in range(cfg.max_epochs):
        loader.sampler.set_epoch(epoch)
        for (x,) in loader:
            model(to_device(x)).sum().backward()


def prepare_dataloader(dataset, batch_size=64, num_workers=4):
    sampler = DistributedSampler(dataset)
    return DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        pin_memory=True,
        num_workers=num_workers,
        drop_last=True,
    )


if __name__ == "__main__":
    main()
