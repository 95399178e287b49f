# stagec fixture: pos_s22_listing_shards_joined_by_concat_dataset (the script)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from shards import dataset_from_sharded_hdf5


def main():
    dist.init_process_group("nccl")
    data = dataset_from_sharded_hdf5("data/train")
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=16, sampler=sampler, num_workers=2, persistent_workers=True)
    model = DistributedDataParallel(torch.nn.Linear(3, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(4):
        sampler.set_epoch(epoch)
        for x in loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
