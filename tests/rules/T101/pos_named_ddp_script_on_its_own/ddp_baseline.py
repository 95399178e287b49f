# stagec fixture: h01_pos_named_ddp_script_on_its_own
# named: on the command line (as pre-commit passes a changed file)
# context: the folder's const.yaml runs model_def:TagTrial on one slot; the trial does not
#          import this file. It is a baseline launched with torchrun outside Determined, so it
#          is checked on its own: it initialises torch.distributed and wraps its model in DDP.
# expect:
#   T101 at 34:37 RandomSampler without generator=: every rank seeds the global RNG with 7 at
#        line 28 and draws the same permutation (the plain DataLoader does not shard).
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


def tags(n: int) -> TensorDataset:
    x = torch.randn(n, 16)
    return TensorDataset(x, (x.sum(dim=1) > 0).long())


def main() -> None:
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    torch.manual_seed(7)
    data = tags(8192)
    model = DistributedDataParallel(nn.Linear(16, 2).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(3):
        loader = DataLoader(data, batch_size=32,
                            sampler=RandomSampler(data))
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
