# stagec fixture: s8 pos_skip_on_local_batch (issue 22, class 6; review 12a's M13 as
#                 maskrcnn-benchmark skips images without boxes, review 10b's M9 as StyleTTS2
#                 skips clips too short, review 6b's M7 as wenet skips empty batches)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank (init_process_group, DDP, a DistributedSampler: each rank its own batches)
# expect:
#   T103 at 35:9 `any(len(t) < 1 for t in targets)` reads the rank's own batch: a rank whose
#        batch holds an image without boxes continues past the DDP backward while the others
#        wait in its gradient all-reduce
#   T103 at 54:9 `clip.size(-1) < 80` reads a clip cut from the rank's own mels (through a
#        list it appends to) with a length from the rank's own batch
#   T103 at 63:9 `batch["target_lengths"].size(0) == 0` skips past a loss reduction and the
#        backward, on a loader whose name says what it is (a parameter)
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def reduce_loss(loss):
    loss = loss.detach().clone()
    dist.all_reduce(loss)
    return loss / dist.get_world_size()


def train_detector(model, dataset, opt, start_iter=0):
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=4)
    for iteration, (images, targets, _) in enumerate(loader, start_iter):
        if iteration % 20 == 0:
            print(iteration)
        if any(len(t) < 1 for t in targets):
            print("empty targets at", iteration)
            continue
        losses = model(images.cuda(), targets).sum()
        opt.zero_grad()
        losses.backward()
        opt.step()


def train_vocoder(model, dataset, opt, max_len=400):
    sampler = DistributedSampler(dataset)
    train_dataloader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for i, batch in enumerate(train_dataloader):
        mels, mel_lengths = batch
        mel_len = min(int(mel_lengths.min().item() / 2 - 1), max_len // 2)
        clips = []
        for b in range(len(mel_lengths)):
            clips.append(mels[b, :, : mel_len * 2])
        clip = torch.stack(clips)
        if clip.size(-1) < 80:
            continue
        loss = model(clip).mean()
        loss.backward()
        opt.step()


def train_asr(model, train_data_loader, opt):
    for batch_idx, batch in enumerate(train_data_loader):
        if batch["target_lengths"].size(0) == 0:
            continue
        loss = model(batch["feats"].cuda(), batch["targets"].cuda())
        print(reduce_loss(loss).item())
        loss.backward()
        opt.step()


def main(model, train_set, opt):
    dist.init_process_group("nccl")
    model = DDP(model.cuda())
    train_detector(model, train_set, opt)
    train_vocoder(model, train_set, opt)
    train_asr(model, DataLoader(train_set, sampler=DistributedSampler(train_set), batch_size=8), opt)
