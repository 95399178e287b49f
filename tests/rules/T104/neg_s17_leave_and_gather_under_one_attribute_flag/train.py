# stagec fixture: neg_s17_leave_and_gather_under_one_attribute_flag
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: an audio-text contrastive trainer's evaluation: without `--parallel-eval` only the
#          main rank evaluates (the others return at once); with it every rank evaluates and
#          the features are all-gathered. The gather runs only under `if args.parallel_eval:`,
#          the early return only under `if not args.parallel_eval:` — the same attribute of a
#          parameter the function never assigns — so no rank waits for one that left.
# expect: none
# ----
import argparse

import torch
import torch.distributed as dist


def is_master(args):
    return args.rank == 0


def gather_features(features, world_size):
    gathered = [torch.zeros_like(features) for _ in range(world_size)]
    dist.all_gather(gathered, features)
    return torch.cat(gathered, dim=0)


def evaluate(model, batches, args):
    metrics = {}
    if not args.parallel_eval:
        if not is_master(args):
            return metrics
    total = 0.0
    with torch.no_grad():
        for x in batches:
            features = model.module(x.cuda())
            if args.parallel_eval:
                features = gather_features(features, args.world_size)
            total += features.norm().item()
    metrics["norm"] = total
    return metrics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parallel-eval", action="store_true")
    args = parser.parse_args()
    dist.init_process_group(backend="nccl")
    args.rank, args.world_size = dist.get_rank(), dist.get_world_size()
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 64).cuda())
    batches = [torch.randn(16, 64) for _ in range(10)]
    for epoch in range(10):
        evaluate(model, batches, args)


if __name__ == "__main__":
    main()
