# stagec fixture: t22a pos_launcher_env_only (issue 22, class 1)
# named: on the command line alone (a data helper changed without its entry point)
# runtime: multi-rank: the module reads the launcher's RANK and WORLD_SIZE
# expect:
#   T110 at 17:25 os.listdir order differs between ranks' hosts; each rank takes every
#        world-th file of its own listing, so ranks can read the same shard twice and skip
#        others. Fix: sorted(…).
# ----
import os

import torch


def my_shards(root):
    rank = int(os.environ["RANK"])
    world = int(os.environ.get("WORLD_SIZE", "1"))
    names = [n for n in os.listdir(root) if n.endswith(".pt")]
    return names[rank::world]


def load_all(root):
    return [torch.load(os.path.join(root, n)) for n in my_shards(root)]
