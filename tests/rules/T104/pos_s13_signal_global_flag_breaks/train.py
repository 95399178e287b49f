# stagec fixture: pos_s13_signal_global_flag_breaks
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: a SIGTERM handler sets a module-level name through `global`; the loop breaks on it,
#          so a rank that got the signal first leaves while the others run the next step's
#          all-reduce, and then waits alone in the barrier after the loop.
# expect:
#   T104 at 27:9 the raw flag decides, on each rank alone, when to leave the loop
# ----
import signal

import torch
import torch.distributed as dist

STOP = False


def handler(signum, frame):
    global STOP  # the loop reads it
    STOP = True


def train(model, opt, steps):
    for step in range(steps):
        opt.zero_grad()
        model(torch.zeros(4, 3).cuda()).sum().backward()
        opt.step()
        if STOP:
            break
    dist.barrier()


def main():
    dist.init_process_group("nccl")
    signal.signal(signal.SIGTERM, handler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 3).cuda())
    train(model, torch.optim.SGD(model.parameters(), lr=0.1), 1000)


if __name__ == "__main__":
    main()
