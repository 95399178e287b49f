# stagec fixture: h08_neg_te_delayed_scaling
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 te_train.py",
#          resources.slots_per_trial: 2, hyperparameters.hpp_config.pipeline_parallel_degree: 2
# runtime: torch.distributed
# expect: no finding (T112).
#   The fp8 stage runs its matmuls under Transformer Engine's fp8_autocast with a DelayedScaling
#   recipe: per-tensor scales derived from the amax history keep values inside the fp8 range, and
#   TE's layers return higher-precision outputs. That is the scaling the rule looks for.
# ----
import os

import torch
import torch.distributed as dist
import transformer_engine.pytorch as te
from torch import nn
from transformer_engine.common.recipe import DelayedScaling, Format

from determined.hpp import stage_decorator

FP8_RECIPE = DelayedScaling(fp8_format=Format.HYBRID, amax_history_len=16, amax_compute_algo="max")


@stage_decorator(stage_id=0, device="h100", dtype="bf16")
class Embed(nn.Module):
    def __init__(self, vocab: int = 16000, dim: int = 768):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)

    def forward(self, ids):
        return self.tok(ids)


@stage_decorator(stage_id=1, device="h100", dtype="float8_e4m3fn")
class Fp8Block(nn.Module):
    def __init__(self, dim: int = 768, vocab: int = 16000):
        super().__init__()
        self.mlp = te.LayerNormMLP(dim, 4 * dim)
        self.out = te.Linear(dim, vocab)

    def forward(self, h):
        with te.fp8_autocast(enabled=True, fp8_recipe=FP8_RECIPE):
            return self.out(h + self.mlp(h))


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = Embed()
        self.block = Fp8Block()

    def forward(self, ids):
        return self.block(self.embed(ids))


def main(steps: int = 500) -> None:
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = nn.parallel.DistributedDataParallel(TinyLM().cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    for _ in range(steps):
        ids = torch.randint(0, 16000, (4, 513), device="cuda")
        logits = model(ids[:, :-1])
        loss = nn.functional.cross_entropy(logits.flatten(0, 1).float(), ids[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
