# stagec fixture: pos_s23_step_draws_in_ddp_model_forward (issue 22, class 3: every rank seeds
#   alike, and the model's `forward`, called through its DistributedDataParallel wrapper, masks
#   a random share of each batch from the global RNG)
# named: on the command line (a torchrun script)
# expect:
#   T101 at 31:5 `torch.manual_seed(1234)` on every rank, and the DDP-wrapped model's forward
#        draws each step's mask with `torch.rand`: every rank masks alike.
# ----
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class MaskedAutoencoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 8)

    def forward(self, x):
        keep = torch.rand(x.shape, device=x.device) > 0.75
        return (self.net(x * keep) - x).square().mean()


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.manual_seed(1234)
    model = MaskedAutoencoder().cuda(local_rank)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters())
    data = TensorDataset(torch.randn(100, 8))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=4, sampler=sampler)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            loss = model(x.cuda(local_rank))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
