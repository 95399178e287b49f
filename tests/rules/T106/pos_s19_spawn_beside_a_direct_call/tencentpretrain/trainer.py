# stagec fixture: s19 pos_spawn_beside_a_direct_call (issue 22, class 7: the seeding helper sets
#                 PYTHONHASHSEED before `mp.spawn` starts fresh interpreters, which would read
#                 it — but the DeepSpeed path calls the same worker directly, in processes the
#                 launcher started long before; there the assignment changes nothing)
# named: on the command line (the trainer and its seeding helper)
# runtime: multi-rank (deepspeed launcher, or mp.spawn)
# expect: nothing (the finding is at the assignment, in utils/seed.py)
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from tencentpretrain.utils.seed import set_seed


def train_and_validate(args):
    set_seed(args.seed)
    if args.deepspeed:
        worker(args.local_rank, None, args)
    elif args.dist_train:
        mp.spawn(worker, nprocs=args.ranks_num, args=(args.gpu_ranks, args), daemon=False)
    else:
        worker(args.gpu_id, None, args)


def worker(local_rank, gpu_ranks, args):
    set_seed(args.seed)
    if args.deepspeed:
        import deepspeed

        deepspeed.init_distributed(dist_backend=args.backend)
    elif args.dist_train:
        dist.init_process_group(backend=args.backend, world_size=args.world_size, rank=gpu_ranks[local_rank])
    model = torch.nn.Linear(8, 8).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(args.total_steps):
        loss = model(torch.randn(4, 8, device="cuda")).pow(2).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
