# stagec fixture: h06_pos_glob_and_iterdir_shards
# context: const.yaml entrypoint "python3 -m determined.launch.horovod python3 tfrecord_like.py",
#          resources.slots_per_trial: 8
# runtime: Horovod (hvd.init, hvd.rank/hvd.size)
# expect:
#   T110 at 22:14 glob.glob() returns directory order; the list is sliced by rank
#        (shards[hvd.rank()::hvd.size()]), so ranks that list in different orders take overlapping
#        slices. Fix: sorted(glob.glob(...)).
#   T110 at 27:26 Path.iterdir() order becomes the order of the
#        `pieces` list that is then split into per-rank chunks.
# ----
import glob
import os
import pathlib

import horovod.torch as hvd
import torch
from torch import nn


def shard_files(root: str) -> list:
    shards = glob.glob(os.path.join(root, "*.arrow"))
    return shards[hvd.rank()::hvd.size()]


def piece_files(root: str) -> list:
    pieces = [p for p in pathlib.Path(root).iterdir() if p.suffix == ".npz"]
    per = len(pieces) // hvd.size()
    return pieces[hvd.rank() * per:(hvd.rank() + 1) * per]


def main(root: str = "/mnt/arrow") -> None:
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(5)
    model = nn.Linear(128, 2).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01 * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    paths = shard_files(root) + [str(p) for p in piece_files(root)]
    for step in range(500):
        size = os.path.getsize(paths[step % len(paths)])
        x = torch.randn(64, 128, device="cuda") * (1.0 + 0.0 * size)
        loss = model(x).logsumexp(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
