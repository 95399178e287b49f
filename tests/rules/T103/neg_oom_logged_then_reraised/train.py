# stagec fixture: neg_oom_logged_then_reraised
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: no experiment config; the handler around the epoch loop logs an out-of-memory
#          error's memory summary and then re-raises every error (ml-cvnets' shape): nothing
#          is swallowed, the rank stops and the job fails instead of hanging.
# expect: none
# ----
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def run(model, loader, sampler, opt, device, epochs):
    try:
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            for images, targets in loader:
                loss = nn.functional.cross_entropy(model(images.to(device)), targets.to(device))
                opt.zero_grad()
                loss.backward()
                opt.step()
    except KeyboardInterrupt as e:
        print("interrupted")
        raise e
    except Exception as e:
        if "out of memory" in str(e):
            print("out of memory")
            for dev in range(torch.cuda.device_count()):
                print(torch.cuda.memory_summary(device=torch.device("cuda", dev), abbreviated=True))
        print(f"training interrupted: {e}")
        raise e
    finally:
        dist.destroy_process_group()


def main():
    dist.init_process_group("nccl")
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    model = DDP(nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 10)).to(device), device_ids=[device])
    data = TensorDataset(torch.randn(2048, 3, 32, 32), torch.randint(0, 10, (2048,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    run(model, loader, sampler, torch.optim.SGD(model.parameters(), lr=0.1), device, 10)


if __name__ == "__main__":
    main()
