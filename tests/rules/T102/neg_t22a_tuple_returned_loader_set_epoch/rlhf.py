# stagec fixture: t22a neg_tuple_returned_loader_set_epoch (issue 22, class 3c)
# named: on the command line (no config: a deepspeed-launched script)
# runtime: multi-rank (init_process_group)
# expect: none.
#   The same loader returned in a tuple and unpacked, and the caller sets the epoch on its
#   sampler (loader.sampler.set_epoch) before each pass: a new order every epoch.
#
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Updater:
    def __init__(self, engine):
        self.engine = engine

    def step(self, batch, aux):
        loss = self.engine(batch).mean()
        if aux is not None:
            loss = loss + aux
        self.engine.backward(loss)
        self.engine.step()


def create_loaders(prompts, batch_size=4):
    sampler = DistributedSampler(prompts)
    loader = DataLoader(prompts, sampler=sampler, batch_size=batch_size)
    extra = [None] * len(loader)
    return loader, extra


def main(prompts, engine, epochs=3):
    dist.init_process_group("nccl")
    loader, extra = create_loaders(prompts)
    updater = Updater(engine)
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for batch, aux in zip(loader, extra):
            updater.step(batch, aux)
