# stagec fixture: pos_s22_nonfinite_loss_breaks_step_loop (issue 22, class 6; IDvs.MoRec's shape: a
#   rank whose own summed loss turns NaN leaves the step loop with `break` while the other ranks go
#   on to the next step's backward, the DDP gradient all-reduce)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node=8 run.py`)
# expect:
#   T103 at 33:13 `loss.data` is this rank's own loss: the rank whose batch overflows leaves the loop …
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def main(local_rank):
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1024, 16), torch.randn(1024, 1))
    sampler = DistributedSampler(data)
    train_dl = DataLoader(data, batch_size=32, sampler=sampler)
    model = DDP(torch.nn.Linear(16, 1).cuda(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.Adam(model.parameters())
    for ep in range(100):
        loss, need_break = 0.0, False
        train_dl.sampler.set_epoch(ep)
        for x, y in train_dl:
            optimizer.zero_grad()
            bz_loss = torch.nn.functional.mse_loss(model(x.cuda(local_rank)), y.cuda(local_rank))
            loss += bz_loss.data.float()
            bz_loss.backward()
            optimizer.step()

            if torch.isnan(loss.data):
                need_break = True
                break
        if need_break:
            break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    main(parser.parse_args().local_rank)
