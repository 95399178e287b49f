# stagec fixture: t22a neg_other_env_only (issue 22, class 1 trap)
# named: on the command line alone
# runtime: one process: the module reads SHARD_INDEX/SHARD_COUNT, its own job-array variables,
#          not a distributed launcher's (no process group, sampler or wrapper either)
# expect: none.
#   The same unsorted listing sliced by an index, but nothing shows several ranks of one job
#   sharing it: each array task is its own run, so stagec says nothing.
# ----
import os

import torch


def my_shards(root):
    index = int(os.environ["SHARD_INDEX"])
    count = int(os.environ.get("SHARD_COUNT", "1"))
    names = [n for n in os.listdir(root) if n.endswith(".pt")]
    return names[index::count]


def load_all(root):
    return [torch.load(os.path.join(root, n)) for n in my_shards(root)]
