# stagec fixture: s11 neg_backward_in_a_script_beside_ddp (issue 22, class 2; pytorch/examples'
#                 distributed/rpc/batch/reinforce.py beside its DDP examples)
# named: on the command line with ddp_train.py
# runtime: multi-rank (torch.multiprocessing.spawn, RPC)
# expect: nothing
#   - the agent (rank 0) runs its policy's backward alone, but this script wraps no model for
#     data parallelism: the backward is local, not an all-reduce. ddp_train.py, another script
#     of the same run that does wrap one, is a program of its own.
# ----
import torch
import torch.distributed.rpc as rpc
import torch.multiprocessing as mp
from torch import nn


class Agent:
    def __init__(self):
        self.policy = nn.Linear(4, 2)
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-2)

    def finish_episode(self):
        policy_loss = self.policy(torch.randn(8, 4)).sum()
        self.optimizer.zero_grad()
        policy_loss.backward()
        self.optimizer.step()


def run_worker(rank, world_size):
    if rank == 0:
        rpc.init_rpc("agent", rank=rank, world_size=world_size)
        agent = Agent()
        for episode in range(100):
            agent.finish_episode()
    else:
        rpc.init_rpc(f"observer{rank}", rank=rank, world_size=world_size)
    rpc.shutdown()


if __name__ == "__main__":
    mp.spawn(run_worker, args=(3,), nprocs=3, join=True)
