# stagec fixture: neg_s13_benchmark_passed_false (the entry)
# named: on the command line (`torchrun --nproc_per_node=8 train.py`)
# context: the same method; the training entry, its only caller, passes False.
# expect: none
# ----
import torch
import torch.distributed as dist

from args import Args


def build_everything(args: Args):
    args.set_initial_seed(benchmark=False)
    return torch.nn.Conv2d(3, 8, 3).cuda()


def main():
    dist.init_process_group("nccl")
    args = Args()
    model = torch.nn.parallel.DistributedDataParallel(build_everything(args))
    model(torch.zeros(1, 3, 8, 8).cuda()).sum().backward()


if __name__ == "__main__":
    main()
