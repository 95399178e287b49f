# stagec fixture: t22b pos_t22b_helper_collectives
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: torch.distributed with an MPI side channel; the collectives hide in helpers
# expect:
#   (Not at 38:30: comm_utils.fetch_blob() runs MPI.COMM_WORLD.bcast and only the chief calls
#   it, but the launcher is torchrun, with no MPI to start the ranks: each rank is an MPI world
#   of its own and the broadcast returns at once. pos_s11_mpi_launched_load has the ranks MPI's.)
#   T104 at 49:9 push_weights() runs dist.broadcast per parameter, only where
#        `args.local_rank <= 0`: the other local ranks never join.
#   T104 at 59:25 mean_loss() (same file) all-reduces, only where `comm_utils.world_rank() == 0`.
#   T104 at 61:9 a helper of a helper: publish() calls push_weights(), only where
#        `args.local_rank in [-1, 0]`.
# ----
import argparse
import pickle

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

import comm_utils


def mean_loss(loss):
    t = loss.detach().clone()
    dist.all_reduce(t)
    return t / dist.get_world_size()


def publish(model):
    comm_utils.push_weights(model.parameters())


def resume(model, path):
    if comm_utils.is_chief():
        state = pickle.loads(comm_utils.fetch_blob(path))
        model.load_state_dict(state)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--local_rank", type=int, default=-1)
    args = p.parse_args()
    dist.init_process_group("nccl")
    model = nn.Linear(8, 1).cuda()
    if args.local_rank <= 0:
        comm_utils.push_weights(model.parameters())
    model = DDP(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    resume(model, "/mnt/ckpt/state.pkl")
    for step in range(100):
        loss = model(torch.randn(4, 8).cuda()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if comm_utils.world_rank() == 0:
            print(step, mean_loss(loss).item())
    if args.local_rank in [-1, 0]:
        publish(model)


if __name__ == "__main__":
    main()
