# stagec fixture: t22b neg_t22b_profiling_backward
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: torch.distributed, the model wrapped in DDP
# expect: none
#   time_ops() is a benchmarking helper: it backpropagates through whatever plain modules it is
#   given, inside `try/except Exception`, to time them. Nothing there steps an optimizer and the
#   modules are not the DDP model, so its backward() is no gradient all-reduce; skipping it on
#   one rank skips nothing the others wait in. (pick_batch() calls it under a try as well.)
# ----
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


def time_ops(x, ops):
    timings = []
    for op in ops:
        t0 = time.perf_counter()
        try:
            y = op(x)
            try:
                y.float().sum().backward()
            except Exception:
                pass
            timings.append(time.perf_counter() - t0)
        except Exception as e:
            print(f"cannot time {op}: {e}")
            timings.append(None)
    return timings


def pick_batch(model, sizes):
    try:
        found = time_ops(torch.randn(sizes[0], 8), [model])
    except Exception:
        return sizes[0]
    return sizes[found.index(min(t for t in found if t is not None))]


def main():
    dist.init_process_group("nccl")
    model = nn.Linear(8, 1).cuda()
    batch = pick_batch(nn.Linear(8, 1), [8, 16, 32])
    model = DDP(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        loss = model(torch.randn(batch, 8).cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
