# stagec fixture: s26 pos_dead_first_rank_barrier_beside_real_one (issue 22, class 2; Oscar's
#                 run_vqa.py: the "first rank first" pair of barriers pasted inside a block only
#                 ranks -1 and 0 enter, so the waiting ranks' barrier is dead and rank 0's is
#                 the only one left)
# named: on the command line (`python -m torch.distributed.launch --nproc_per_node 8 train.py`)
# expect:
#   T104 at 38:17 rank 0's barrier, which the other ranks never join
#   (not at 34:17: that barrier runs on no rank, as the test around it excludes its own)
# ----
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def evaluate(model):
    with torch.no_grad():
        return model.module(torch.randn(4, 8)).sum().item()


def train(args, model, batches):
    model = DDP(model, device_ids=[args.local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    global_step = 0
    for x, y in batches:
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        global_step += 1
        if args.local_rank in [-1, 0] and global_step % args.logging_steps == 0:
            if args.local_rank not in [-1, 0]:
                dist.barrier()
            if args.local_rank in [-1, 0] and args.evaluate_during_training:
                print(evaluate(model))
            if args.local_rank == 0:
                dist.barrier()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--logging_steps", type=int, default=50)
    parser.add_argument("--evaluate_during_training", action="store_true")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    batches = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(1000)]
    train(args, torch.nn.Linear(8, 1).cuda(args.local_rank), batches)


if __name__ == "__main__":
    main()
