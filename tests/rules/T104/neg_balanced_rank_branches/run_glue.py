# stagec fixture: h03_neg_balanced_rank_branches
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 run_glue.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed (legacy local_rank argument style)
# expect: no finding.
#   - The two barriers are complementary: ranks other than 0 wait at the first one while rank 0
#     downloads, then rank 0 calls the second one. Every rank calls barrier exactly once.
#   - zero_first() is the same pair inside a context manager (predicates `not in [-1, 0]` and
#     `== 0` are complements on the distributed path, where local_rank != -1).
#   - broadcast_object_list is called in both branches of an if/else on the rank.
#   - dist.send / dist.recv under rank conditions are point-to-point, rank-conditional by design.
# ----
import argparse
from contextlib import contextmanager

import torch
import torch.distributed as dist


@contextmanager
def zero_first(local_rank: int):
    if local_rank not in [-1, 0]:
        dist.barrier()
    yield
    if local_rank == 0:
        dist.barrier()


def download_vocab() -> list:
    return ["[PAD]", "[CLS]", "[SEP]"] + [f"tok{i}" for i in range(30000)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    args = parser.parse_args()
    if args.local_rank != -1:
        torch.cuda.set_device(args.local_rank)
        dist.init_process_group(backend="nccl")

    if args.local_rank not in [-1, 0]:
        dist.barrier()
    vocab = download_vocab()
    if args.local_rank == 0:
        dist.barrier()

    with zero_first(args.local_rank):
        features = torch.randint(0, len(vocab), (10000, 128))

    if dist.get_rank() == 0:
        payload = [{"n_features": len(features), "vocab": len(vocab)}]
        dist.broadcast_object_list(payload, src=0)
    else:
        payload = [None]
        dist.broadcast_object_list(payload, src=0)

    if dist.get_rank() == 0:
        dist.send(torch.ones(1, device="cuda"), dst=1)
    elif dist.get_rank() == 1:
        buf = torch.empty(1, device="cuda")
        dist.recv(buf, src=0)


if __name__ == "__main__":
    main()
