# stagec fixture: neg_s14_fsdp_saved_on_its_own_path (wenet's shape)
# named: on the command line (`torchrun --nproc_per_node=8 train.py --engine torch_fsdp`)
# context: an FSDP run saves through its own path, on every rank, under
#          FSDP.state_dict_type(…, rank0_only=True); only the DDP run's save sits under
#          `rank == 0`. Which model reaches which branch is the engine test's, not the
#          values': code that chooses FSDP's state dict type is left alone.
# expect: none
# ----
import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FullStateDictConfig, StateDictType
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP


def save_checkpoint(model, path):
    if isinstance(model, nn.parallel.DistributedDataParallel):
        state_dict = model.module.state_dict()
    else:
        state_dict = model.state_dict()
    torch.save(state_dict, path)


def fsdp_save_model(model, path, rank):
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(rank0_only=True)):
        state_dict = model.state_dict()
        if rank == 0:
            torch.save(state_dict, path)


def save_model(model, path, engine, rank):
    if engine == "torch_fsdp":
        fsdp_save_model(model, path, rank)
    elif rank == 0:
        save_checkpoint(model, path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", default="torch_ddp")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    model = nn.Linear(8, 1).cuda()
    if args.engine == "torch_fsdp":
        model = FSDP(model, device_id=local_rank)
    else:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for epoch in range(10):
        loss = model(torch.randn(4, 8, device="cuda")).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        save_model(model, f"epoch_{epoch}.pt", args.engine, rank)


if __name__ == "__main__":
    main()
