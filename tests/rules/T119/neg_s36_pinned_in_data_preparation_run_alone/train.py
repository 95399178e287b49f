# stagec fixture: neg_s36_pinned_in_data_preparation_run_alone (issue 22, regression corpus: OpenPCDet's waymo_dataset.py)
# named: on the command line with waymo.py (`torchrun --nproc_per_node 8 train.py`)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from waymo import WaymoDataset


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dataset = WaymoDataset("data/waymo/infos_train.pkl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    model = DDP(torch.nn.Linear(5, 3).cuda(), device_ids=[local_rank])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(30):
        sampler.set_epoch(epoch)
        for x in loader:
            loss = model(x.cuda()).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
