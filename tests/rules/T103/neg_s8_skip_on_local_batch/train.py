# stagec fixture: s8 neg_skip_on_local_batch (issue 22, class 6; the look-alikes of
#                 pos_s8_skip_on_local_batch)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP, a DistributedSampler)
# expect: nothing
#   - skips on the loop's counter only (a resume offset, accumulation steps);
#   - a clip whose length went through `accelerator.gather`-like agreement first (StyleTTS2's
#     train_first gathers the lengths: every rank cuts the same width);
#   - a skip under the DDP model's `join()`, also through a name bound to `model.join`;
#   - `for p in model.parameters(): if p.grad is None: continue` before an all-reduce: the
#     loop iterates parameters, the same on every rank, not a loader;
#   - a skip after the step's last collective.
# ----
from contextlib import nullcontext

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def gather(x):
    out = [torch.zeros_like(x) for _ in range(dist.get_world_size())]
    dist.all_gather(out, x)
    return torch.cat(out)


def train(model, dataset, opt, skip=0, accum=4, uneven=False):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for i, (x, lengths) in enumerate(loader):
        if i < skip:
            continue
        all_lengths = gather(lengths)
        width = int(all_lengths.min().item())
        clips = []
        for b in range(len(lengths)):
            clips.append(x[b, :, :width])
        clip = torch.stack(clips)
        if clip.size(-1) < 80:
            continue
        loss = model(clip).mean() / accum
        loss.backward()
        if (i + 1) % accum != 0:
            continue
        opt.step()
        opt.zero_grad()
        if len(x) == 0:
            continue
        print(loss.item())
    context = model.join if uneven else nullcontext
    with context():
        for x, y in loader:
            if len(y) == 0:
                continue
            model(x).mean().backward()
    with model.join():
        for x, y in loader:
            if y is None:
                continue
            model(x).mean().backward()


def sync_grads(model):
    for p in model.parameters():
        if p.grad is None:
            continue
        dist.all_reduce(p.grad)


def main(model, train_set, opt):
    dist.init_process_group("nccl")
    model = DDP(model.cuda())
    train(model, train_set, opt)
    sync_grads(model)
