# stagec fixture: h08_pos_fp8_head_loss_in_forward
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 lm_pipe.py",
#          resources.slots_per_trial: 4, hyperparameters.hpp_config.pipeline_parallel_degree: 2
# runtime: Determined Core API + torch.distributed
# expect:
#   T112 at 49:18 the last stage (LMHead) is declared float8_e5m2 and its logits go
#        straight into F.cross_entropy inside the root model's forward; nothing sanitises or
#        scales them on the way (the .float() upcast keeps NaN/inf as they are).
#        Fix: torch.nan_to_num(self.head(h), nan=0.0, posinf=57344.0, neginf=-57344.0)
# ----
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

import determined as det
from determined.hpp import stage_decorator


@stage_decorator(0, "h100", "bf16")
class Body(nn.Module):
    def __init__(self, vocab: int = 32000, dim: int = 1024):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.mix = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.SiLU())

    def forward(self, ids):
        return self.mix(self.emb(ids))


@stage_decorator(1, "h100", "float8_e5m2")
class LMHead(nn.Module):
    def __init__(self, vocab: int = 32000, dim: int = 1024):
        super().__init__()
        self.proj = nn.Linear(dim, vocab, bias=False)

    def forward(self, h):
        return self.proj(h)


class PipelineLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Body()
        self.head = LMHead()

    def forward(self, ids, targets):
        h = self.body(ids)
        logits = self.head(h).float()
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())


def main(core: det.core.Context, steps: int = 1000) -> None:
    model = nn.parallel.DistributedDataParallel(PipelineLM().cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for step in range(steps):
        ids = torch.randint(0, 32000, (8, 257), device="cuda")
        loss = model(ids[:, :-1], ids[:, 1:])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if core.distributed.rank == 0 and step % 100 == 0:
            core.train.report_training_metrics(steps_completed=step, metrics={"loss": loss.item()})


if __name__ == "__main__":
    dist.init_process_group("nccl")
    with det.core.init(distributed=det.core.DistributedContext.from_torch_distributed()) as ctx:
        main(ctx)
