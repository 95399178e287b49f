# stagec fixture: s31 pos_unwrapped_when_wrapped (issue 22, class "other": an RL trainer that takes
#   the module out of its DDP wrapper for the policy's forward, so the policy's gradients are
#   never averaged; minimind's GRPO and PPO loops)
# named: on the command line (`torchrun --nproc_per_node 8 train_grpo.py`)
# expect:
#   T117 at 24:15 the unwrapped module's forward reaches loss.backward() at line 29
# ----
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel


def grpo_train_epoch(model, ref_model, loader, optimizer):
    for step, batch in enumerate(loader):
        prompts = batch["prompt_ids"].cuda()
        with torch.no_grad():
            rollout = model.module.generate(prompts, max_new_tokens=64) if isinstance(model, DistributedDataParallel) else model.generate(prompts, max_new_tokens=64)
            ref_logits = ref_model(rollout).logits
        rewards = batch["reward"].cuda()
        model_unwrapped = model.module if isinstance(model, DistributedDataParallel) else model
        res = model_unwrapped(rollout)
        logps = F.log_softmax(res.logits[:, :-1], dim=-1)
        ref_logps = F.log_softmax(ref_logits[:, :-1], dim=-1)
        kl = (logps.exp() * (logps - ref_logps)).sum(-1).mean()
        loss = -(rewards * logps.mean(-1)).mean() + 0.04 * kl
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = torch.nn.Transformer().cuda()
    ref_model = torch.nn.Transformer().cuda().eval()
    model = DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.zeros(8)), batch_size=2)
    for epoch in range(2):
        grpo_train_epoch(model, ref_model, loader, optimizer)


if __name__ == "__main__":
    main()
