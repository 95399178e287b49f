# stagec fixture: neg_s22_nonfinite_reduced_loss_breaks_step_loop (look-alike of
#   pos_s22_nonfinite_loss_breaks_step_loop: the loss is all-reduced before the test, so every rank
#   sees the same NaN and every rank breaks together)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node=8 run.py`)
# expect: nothing
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
            dist.all_reduce(loss)
            if torch.isnan(loss.data):
                need_break = True
                break
        if need_break:
            break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    main(parser.parse_args().local_rank)
