# stagec fixture: h05_neg_env_set_at_startup
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 det_repro.py",
#          resources.slots_per_trial: 4, environment.image determinedai/environments:cuda-11.8-pytorch-2.0-gpu-95c7a14,
#          environment.environment_variables: [PYTHONHASHSEED=0, CUBLAS_WORKSPACE_CONFIG=:4096:8]
# runtime: torch.distributed
# expect: no finding.
#   - PYTHONHASHSEED=0 is in the experiment's environment, so every rank starts with the same
#     string-hash seed: the os.environ assignment below is redundant and harmless, and the set
#     iteration in build_vocab() has the same order on every rank.
#   - use_deterministic_algorithms(True) with CUBLAS_WORKSPACE_CONFIG set for the process.
#   - cudnn.benchmark is False.
#   - torch.manual_seed(0): literal seeds are never reported.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn


def seed_all(seed: int = 0) -> None:
    os.environ["PYTHONHASHSEED"] = str(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False


def build_vocab(lines: list) -> dict:
    words = {w for line in lines for w in line.split()}
    return {w: i for i, w in enumerate(words)}


def main() -> None:
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    seed_all()
    vocab = build_vocab(["the cat sat", "on the mat", "the end"] * 100)
    emb = nn.parallel.DistributedDataParallel(nn.Embedding(len(vocab), 64).cuda())
    opt = torch.optim.SGD(emb.parameters(), lr=0.1)
    ids = torch.tensor([vocab[w] for w in "the cat sat on the mat".split()], device="cuda")
    for _ in range(100):
        loss = emb(ids).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
