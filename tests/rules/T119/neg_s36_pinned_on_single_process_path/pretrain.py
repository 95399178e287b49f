# stagec fixture: neg_s36_pinned_on_single_process_path (look-alike of pos_s36_pinned_at_import_under_torchrun)
# named: on the command line (`torchrun --nproc_per_node 8 pretrain.py`)
# runtime: multi-rank (RANK from the launcher, init_process_group, DDP)
# expect: nothing
#   the script pins one GPU only on its one-process path (no RANK from a
#   launcher); under torchrun each rank keeps every GPU visible and takes
#   its own.
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main():
    ddp = int(os.environ.get("RANK", -1)) != -1
    if ddp:
        dist.init_process_group(backend="nccl")
        ddp_local_rank = int(os.environ["LOCAL_RANK"])
        device = f"cuda:{ddp_local_rank}"
        torch.cuda.set_device(device)
    else:
        os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        device = "cuda:0"
    data = TensorDataset(torch.randint(0, 6400, (4096, 512)))
    sampler = DistributedSampler(data) if ddp else None
    loader = DataLoader(data, batch_size=8, sampler=sampler, shuffle=sampler is None)
    model = torch.nn.Sequential(torch.nn.Embedding(6400, 256), torch.nn.Linear(256, 6400)).to(device)
    if ddp:
        model = DDP(model, device_ids=[ddp_local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(2):
        if ddp:
            sampler.set_epoch(epoch)
        for (x,) in loader:
            x = x.to(device)
            logits = model(x[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), x[:, 1:].flatten())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
