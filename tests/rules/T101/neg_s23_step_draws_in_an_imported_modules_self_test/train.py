# stagec fixture: neg_s23_step_draws_in_an_imported_modules_self_test (the training script)
# named: on the command line with scaling.py
# expect: nothing
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from scaling import Balancer


def main(dataset):
    dist.init_process_group("nccl")
    torch.manual_seed(1234)
    model = torch.nn.parallel.DistributedDataParallel(Balancer(128).cuda())
    optimizer = torch.optim.AdamW(model.parameters())
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x in loader:
            loss = model(x.cuda()).square().mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main(None)
