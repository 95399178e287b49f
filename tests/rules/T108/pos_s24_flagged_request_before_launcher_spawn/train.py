# stagec fixture: s24 pos_flagged_request_before_launcher_spawn (issue 22, class 7; review 31b's
#                 VQ-Diffusion: `--seed` and `--cudnn_deterministic` are handed to a seeding
#                 helper in the launching process, which then starts the ranks through a
#                 launcher helper's mp.spawn; off by default, lost whenever the flag is given)
# named: on the command line (`python train.py --cudnn_deterministic --seed 0`)
# expect:
#   T108 at 38:9 the helper's call, where the request and seeds stay in the parent process.
# ----
import argparse

import torch

from dist.launch import launch
from misc import seed_everything


def main_worker(local_rank, args):
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Conv2d(3, 8, 3).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(100):
        loss = model(torch.randn(2, 3, 32, 32).cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--cudnn_deterministic", action="store_true")
    parser.add_argument("--num_node", type=int, default=1)
    return parser.parse_args()


def main():
    args = get_args()
    if args.seed is not None or args.cudnn_deterministic:
        seed_everything(args.seed, args.cudnn_deterministic)
    ngpus = torch.cuda.device_count()
    launch(main_worker, ngpus, args.num_node, args=(args,))


if __name__ == "__main__":
    main()
