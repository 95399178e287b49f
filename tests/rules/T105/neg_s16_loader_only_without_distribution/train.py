# stagec fixture: neg_s16_loader_only_without_distribution
# named: on the command line (`python -m torch.distributed.launch train.py` with DIST_TRAIN on)
# context: TransReID's shape: a yacs flag `cfg.MODEL.DIST_TRAIN` decides whether the process
#          group is initialised; the distributed branch builds a loader that keeps its workers,
#          the `else` branch (one process, no ranks) builds one that does not, and the
#          validation loader is iterated on rank 0 in a distributed run and by the single process
#          otherwise, with one worker (too few to hold the other ranks up).
# expect: none
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from yacs.config import CfgNode as CN

cfg = CN()
cfg.MODEL = CN()
cfg.MODEL.DIST_TRAIN = True
cfg.DATALOADER = CN()
cfg.DATALOADER.NUM_WORKERS = 8
cfg.SOLVER = CN()
cfg.SOLVER.MAX_EPOCHS = 120


def make_dataloader(cfg):
    train_set = TensorDataset(torch.randn(4096, 64), torch.randint(0, 10, (4096,)))
    val_set = TensorDataset(torch.randn(512, 64), torch.randint(0, 10, (512,)))
    if cfg.MODEL.DIST_TRAIN:
        train_loader = DataLoader(
            train_set,
            batch_size=64,
            sampler=DistributedSampler(train_set),
            num_workers=cfg.DATALOADER.NUM_WORKERS,
            persistent_workers=True,
        )
    else:
        train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=cfg.DATALOADER.NUM_WORKERS)
    val_loader = DataLoader(val_set, batch_size=64, num_workers=1)
    return train_loader, val_loader


def do_train(cfg, model, train_loader, val_loader, optimizer):
    for epoch in range(1, cfg.SOLVER.MAX_EPOCHS + 1):
        if cfg.MODEL.DIST_TRAIN:
            train_loader.sampler.set_epoch(epoch)
        for img, target in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(img.cuda()), target.cuda()).backward()
            optimizer.step()
        if cfg.MODEL.DIST_TRAIN:
            if dist.get_rank() == 0:
                with torch.no_grad():
                    for img, _ in val_loader:
                        model(img.cuda())
        else:
            for img, _ in val_loader:
                model(img.cuda())


if __name__ == "__main__":
    if cfg.MODEL.DIST_TRAIN:
        dist.init_process_group(backend="nccl", init_method="env://")
    train_loader, val_loader = make_dataloader(cfg)
    model = torch.nn.Linear(64, 10).cuda()
    if cfg.MODEL.DIST_TRAIN:
        model = torch.nn.parallel.DistributedDataParallel(model)
    do_train(cfg, model, train_loader, val_loader, torch.optim.SGD(model.parameters(), lr=0.01))
