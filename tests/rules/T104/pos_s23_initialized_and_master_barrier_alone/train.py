# stagec fixture: pos_s23_initialized_and_master_barrier_alone (issue 22, class 2; the look-alike of
#   the master-first pair: only the master's test, `dist.is_initialized() and is_master()`, guards a
#   barrier, and no other rank reaches one)
# named: on the command line (a torchrun script)
# expect:
#   T104 at 19:9 only the master reaches the barrier.
# ----
import torch
import torch.distributed as dist


def is_master():
    return not dist.is_initialized() or dist.get_rank() == 0


def save(model, path):
    if dist.is_initialized() and is_master():
        torch.save(model.state_dict(), path)
        dist.barrier()


def main():
    dist.init_process_group("nccl")
    model = torch.nn.Linear(4, 4)
    save(model, "model.pt")


if __name__ == "__main__":
    main()
