# stagec fixture project p3_core_api_module: trainer/main.py
# expect: no finding in this file.
#   - train_sampler (torch DistributedSampler, shuffle on) is passed to loop.run_epoch(...) as
#     `sampler`, which calls sampler.set_epoch(epoch) each epoch: T102 silent (cross-module).
#   - val_sampler keeps shuffle=True without set_epoch, but its loader only feeds
#     loop.evaluate() under torch.no_grad(): no backward/optimizer step consumes it, so the
#     repeated order is harmless and T102 is silent.
#   - num_workers = hyperparameters.workers = 4 (and no pipeline stages).
# ----
import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

import determined as det
from trainer import loop
from trainer.data import ShardIndex, collate_paths


def run(core: det.core.Context, epochs: int, shards: str) -> None:
    hparams = det.get_cluster_info().trial.hparams
    device = torch.device("cuda", core.distributed.local_rank)
    torch.cuda.set_device(device)
    train_set = ShardIndex(f"{shards}/train")
    val_set = ShardIndex(f"{shards}/val", rows_per_shard=64)
    train_sampler = DistributedSampler(train_set, num_replicas=core.distributed.size, rank=core.distributed.rank)
    val_sampler = DistributedSampler(val_set, num_replicas=core.distributed.size, rank=core.distributed.rank)
    train_loader = DataLoader(
        train_set, batch_size=hparams["batch_size"], sampler=train_sampler,
        num_workers=hparams["workers"], collate_fn=collate_paths,
    )
    val_loader = DataLoader(val_set, batch_size=64, sampler=val_sampler, collate_fn=collate_paths)

    model = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 100)).to(device)
    model = nn.parallel.DistributedDataParallel(model, device_ids=[device])
    opt = torch.optim.AdamW(model.parameters(), lr=hparams["lr"])

    for epoch in range(epochs):
        train_loss = loop.run_epoch(model, train_loader, train_sampler, opt, epoch, device)
        val_loss = loop.evaluate(model, val_loader, device)
        if core.distributed.rank == 0:
            steps = (epoch + 1) * len(train_loader)
            core.train.report_training_metrics(steps_completed=steps, metrics={"loss": train_loss})
            core.train.report_validation_metrics(steps_completed=steps, metrics={"val_loss": val_loss})
        if core.preempt.should_preempt():
            return
