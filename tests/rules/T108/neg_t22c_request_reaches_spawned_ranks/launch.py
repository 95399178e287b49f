# stagec fixture: t22c_neg_request_reaches_spawned_ranks
# named: on the command line
# context: no experiment config; three launchers that look like the positive, and whose
#          requests do reach the ranks:
#          - `launch_a` asks in the parent and again in the spawned function `rank_main`;
#          - the module-level request runs again in every spawned interpreter, which imports
#            this module (as `__mp_main__`) before it calls `rank_b`;
#          - `launch_c` starts its workers with start_method="fork", which copies the parent.
# expect: none.
# ----
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn

torch.backends.cudnn.deterministic = True


def rank_main(local_rank: int, world: int) -> None:
    torch.backends.cudnn.deterministic = True
    torch.manual_seed(0)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29534", rank=local_rank, world_size=world)
    model = nn.parallel.DistributedDataParallel(nn.Conv2d(3, 8, 3))
    model(torch.randn(2, 3, 16, 16)).mean().backward()


def rank_b(local_rank: int, world: int) -> None:
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:29535", rank=local_rank, world_size=world)


def launch_a(world: int) -> None:
    torch.use_deterministic_algorithms(True)
    mp.spawn(rank_main, nprocs=world, args=(world,))


def launch_b(world: int) -> None:
    mp.spawn(rank_b, nprocs=world, args=(world,))


def launch_c(world: int) -> None:
    torch.backends.cudnn.deterministic = True
    mp.start_processes(rank_b, nprocs=world, args=(world,), start_method="fork")
