# stagec fixture: pos_s13_benchmark_passed_by_only_call (the entry)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the seeding method turns cudnn.benchmark on from its parameter, and asks for
#          deterministic cuDNN when a seed is given; its only call (on a parameter annotated
#          with the class) passes True.
# expect:
#   T108 at 16:27 `benchmark=True` turns benchmarking on in the same call that asks for determinism
# ----
import torch
import torch.distributed as dist

from args import Args


def build_everything(args: Args):
    args.set_initial_seed(benchmark=True)
    return torch.nn.Conv2d(3, 8, 3).cuda()


def main():
    dist.init_process_group("nccl")
    args = Args()
    model = torch.nn.parallel.DistributedDataParallel(build_everything(args))
    model(torch.zeros(1, 3, 8, 8).cuda()).sum().backward()


if __name__ == "__main__":
    main()
