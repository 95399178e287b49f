# stagec fixture: neg_s12_synthetic_steps_in_step (issue 22, class 3: tensor-parallel and FSDP demos)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing. Every rank seeds alike and the step draws its inputs, but
#   the loop passes over no data (`for i in range(steps)` with synthetic
#   inputs), and the second loop reseeds at each step (`torch.manual_seed(i)`)
#   to keep the tensor-parallel ranks' inputs equal: equal draws are the point.
# ----
import torch
import torch.distributed as dist
from torch import nn


def main():
    dist.init_process_group("nccl")
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Linear(16, 16).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for i in range(100):
        x = torch.randint(0, 16, (8, 16), device="cuda").float()
        loss = model(x).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    for i in range(100):
        torch.manual_seed(i)
        x = torch.rand(8, 16, device="cuda")
        loss = model(x).sum()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
