# stagec fixture: neg_s22_listing_shards_concatenated_sorted (the script)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

from modelnet import ModelNet40


def main():
    dist.init_process_group("nccl")
    data = ModelNet40("data/modelnet40")
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler, num_workers=4, persistent_workers=True)
    model = DistributedDataParallel(torch.nn.Linear(3, 40).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(4):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()).mean(1), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
