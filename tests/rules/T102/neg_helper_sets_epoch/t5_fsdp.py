# stagec fixture: h02_neg_helper_sets_epoch
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 t5_fsdp.py",
#          resources.slots_per_trial: 4
# runtime: torch.distributed + FSDP
# expect: no finding.
#   train_sampler is passed to train_epoch(..., sampler=train_sampler), which calls
#   sampler.set_epoch(epoch) when a sampler is given; val_sampler (default shuffle=True) is
#   passed positionally to evaluate(), whose `sampler` parameter gets set_epoch(epoch) too.
#   stagec binds call-site arguments to parameters (keyword and positional) to see that both
#   samplers reach a set_epoch call inside the epoch loop.
#   The literal seed torch.manual_seed(2024) (FSDP init without sync_module_states needs equal
#   weights on all ranks) is never reported.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def train_epoch(model, loader, opt, epoch, rank, sampler=None):
    model.train()
    if sampler:
        sampler.set_epoch(epoch)
    totals = torch.zeros(2, device=rank)
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.to(rank)), y.to(rank))
        opt.zero_grad()
        loss.backward()
        opt.step()
        totals += torch.tensor([loss.item(), 1.0], device=rank)
    dist.all_reduce(totals)
    return (totals[0] / totals[1]).item()


@torch.no_grad()
def evaluate(model, loader, sampler, epoch, rank):
    sampler.set_epoch(epoch)
    errs = torch.stack([nn.functional.mse_loss(model(x.to(rank)), y.to(rank)) for x, y in loader])
    return errs.mean().item()


def main():
    rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")
    torch.cuda.set_device(rank)
    torch.manual_seed(2024)
    train_set = TensorDataset(torch.randn(6000, 512), torch.randn(6000, 512))
    val_set = TensorDataset(torch.randn(600, 512), torch.randn(600, 512))
    train_sampler = DistributedSampler(train_set, rank=dist.get_rank(), num_replicas=dist.get_world_size(), shuffle=True)
    val_sampler = DistributedSampler(val_set, rank=dist.get_rank(), num_replicas=dist.get_world_size())
    train_loader = DataLoader(train_set, batch_size=16, sampler=train_sampler, num_workers=2)
    val_loader = DataLoader(val_set, batch_size=16, sampler=val_sampler)
    model = FSDP(nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 512)).to(rank))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for epoch in range(1, 6):
        train_epoch(model, train_loader, opt, epoch, rank, sampler=train_sampler)
        evaluate(model, val_loader, val_sampler, epoch, rank)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
