//! Cost of the training-code analysis (issue 12; figures in
//! benches/README.md, "Training-code findings, reviewed"): a check of an
//! experiment whose training package holds about 5,000 lines of Python over
//! several modules, against the same check without the training code.
//! Target: the analysis adds at most 10 ms.
//!
//! The package is generated here, deterministically, from templates in the
//! shapes training code takes (a `torch.distributed` entry script with
//! argparse, datasets and loaders with `DistributedSampler`, model blocks
//! with interpolation, an engine with collectives, checkpointing under
//! `try`, rank helpers): nothing large is committed. It is free of the
//! hazards the rules look for, so every rule walks all of it without an
//! early exit.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use stagec::project::{Input, Project};
use stagec::Options;

/// Lines of Python the package should reach.
const TARGET_LINES: usize = 5000;

const CONFIG: &str = "\
name: bench-training-package
entrypoint: python3 -m determined.launch.torch_distributed python3 train.py --epochs 30 --workers 6
resources:
  slots_per_trial: 8
searcher:
  name: single
  metric: val_loss
  max_length:
    epochs: 30
hyperparameters:
  global_batch_size: 256
  lr: 0.0003
  weight_decay: 0.05
  num_workers: 6
checkpoint_storage:
  type: shared_fs
  host_path: /mnt/checkpoints
environment:
  image: determinedai/environments:cuda-11.8-pytorch-2.0-gpu-0.26.4
";

const UTILS: &str = r#""""Distributed helpers shared by the package."""
import logging
import os
import random
import time
from collections import defaultdict, deque

import numpy as np
import torch
import torch.distributed as dist

logger = logging.getLogger(__name__)


def is_dist_avail_and_initialized():
    if not dist.is_available():
        return False
    if not dist.is_initialized():
        return False
    return True


def get_world_size():
    if not is_dist_avail_and_initialized():
        return 1
    return dist.get_world_size()


def get_rank():
    if not is_dist_avail_and_initialized():
        return 0
    return dist.get_rank()


def is_main_process():
    return get_rank() == 0


def seed_everything(seed, rank):
    value = seed + rank
    random.seed(value)
    np.random.seed(value)
    torch.manual_seed(value)
    torch.cuda.manual_seed_all(value)


def init_distributed(args):
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        args.rank = int(os.environ["RANK"])
        args.world_size = int(os.environ["WORLD_SIZE"])
        args.gpu = int(os.environ["LOCAL_RANK"])
    else:
        args.distributed = False
        return
    args.distributed = True
    torch.cuda.set_device(args.gpu)
    dist.init_process_group(backend="nccl", init_method="env://")
    dist.barrier()
"#;

/// A block of helpers repeated with index `{k}`.
const UTILS_BLOCK: &str = r#"

class SmoothedValue{k}:
    """Tracks a series of values and gives smoothed figures over a window."""

    def __init__(self, window_size=20, fmt=None):
        if fmt is None:
            fmt = "{median:.4f} ({global_avg:.4f})"
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0
        self.fmt = fmt

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    def synchronize_between_processes(self):
        if not is_dist_avail_and_initialized():
            return
        t = torch.tensor([self.count, self.total], dtype=torch.float64, device="cuda")
        dist.barrier()
        dist.all_reduce(t)
        t = t.tolist()
        self.count = int(t[0])
        self.total = t[1]

    @property
    def median(self):
        d = torch.tensor(list(self.deque))
        return d.median().item()

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)


class MetricLogger{k}:
    def __init__(self, delimiter="\t"):
        self.meters = defaultdict(SmoothedValue{k})
        self.delimiter = delimiter

    def update(self, **kwargs):
        for name, value in kwargs.items():
            if isinstance(value, torch.Tensor):
                value = value.item()
            self.meters[name].update(value)

    def synchronize_between_processes(self):
        for meter in self.meters.values():
            meter.synchronize_between_processes()

    def log_every(self, iterable, print_freq, header=""):
        start = time.time()
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0 and is_main_process():
                elapsed = time.time() - start
                logger.info("%s [%d/%d] %.1fs", header, i, len(iterable), elapsed)


def reduce_dict{k}(input_dict, average=True):
    world_size = get_world_size()
    if world_size < 2:
        return input_dict
    with torch.no_grad():
        names = sorted(input_dict.keys())
        values = torch.stack([input_dict[n] for n in names], dim=0)
        dist.all_reduce(values)
        if average:
            values /= world_size
        return {n: v for n, v in zip(names, values)}
"#;

const DATA_HEADER: &str = r#""""Datasets and loaders."""
import glob
import json
import os

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from trainer.utils import get_rank, get_world_size
"#;

const DATA_BLOCK: &str = r#"

class ShardedImages{k}(Dataset):
    """Images and labels listed in a folder, in a stable order."""

    def __init__(self, root, split="train", transform=None):
        self.root = os.path.join(root, split)
        self.files = sorted(glob.glob(os.path.join(self.root, "*.pt")))
        with open(os.path.join(root, f"{split}_labels.json")) as f:
            self.labels = json.load(f)
        self.transform = transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, index):
        path = self.files[index]
        image = torch.load(path)
        label = self.labels[os.path.basename(path)]
        if self.transform is not None:
            image = self.transform(image)
        return image, label


def collate_{k}(batch):
    images = torch.stack([b[0] for b in batch])
    labels = torch.tensor([b[1] for b in batch], dtype=torch.long)
    return images, labels


class RandomCrop{k}:
    def __init__(self, size):
        self.size = size

    def __call__(self, image):
        h, w = image.shape[-2:]
        top = torch.randint(0, h - self.size + 1, (1,)).item()
        left = torch.randint(0, w - self.size + 1, (1,)).item()
        return image[..., top : top + self.size, left : left + self.size]


def build_loader_{k}(root, batch_size, workers, train=True):
    dataset = ShardedImages{k}(root, "train" if train else "val", RandomCrop{k}(224) if train else None)
    sampler = DistributedSampler(
        dataset,
        num_replicas=get_world_size(),
        rank=get_rank(),
        shuffle=train,
        drop_last=train,
    )
    loader = DataLoader(
        dataset,
        batch_size=batch_size,
        sampler=sampler,
        num_workers=workers,
        pin_memory=True,
        persistent_workers=workers > 0,
        collate_fn=collate_{k},
        drop_last=train,
    )
    return loader, sampler
"#;

const MODEL_HEADER: &str = r#""""Model blocks."""
import math

import torch
import torch.nn.functional as F
from torch import nn
"#;

const MODEL_BLOCK: &str = r#"

class ConvBNAct{k}(nn.Module):
    def __init__(self, cin, cout, kernel=3, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.SiLU(inplace=True)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Residual{k}(nn.Module):
    def __init__(self, channels, expansion=4, drop=0.0):
        super().__init__()
        hidden = channels * expansion
        self.expand = ConvBNAct{k}(channels, hidden, 1)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, 1, 1, groups=hidden, bias=False)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.norm = nn.BatchNorm2d(channels)
        self.drop = nn.Dropout(drop) if drop > 0 else nn.Identity()

    def forward(self, x):
        y = self.expand(x)
        y = self.depthwise(y)
        y = self.project(y)
        return x + self.drop(self.norm(y))


class Attention{k}(nn.Module):
    def __init__(self, dim, heads=8):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, c)
        return self.proj(out)


class Pyramid{k}(nn.Module):
    def __init__(self, channels, levels=3):
        super().__init__()
        self.lateral = nn.ModuleList([nn.Conv2d(channels, channels, 1) for _ in range(levels)])
        self.smooth = nn.ModuleList([ConvBNAct{k}(channels, channels) for _ in range(levels)])

    def forward(self, features):
        out = [self.lateral[-1](features[-1])]
        for i in range(len(features) - 2, -1, -1):
            top = F.interpolate(out[0], size=features[i].shape[-2:], mode="bilinear", align_corners=False)
            out.insert(0, self.smooth[i](self.lateral[i](features[i]) + top))
        return out


def init_weights_{k}(module):
    if isinstance(module, nn.Conv2d):
        nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
    elif isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


class Network{k}(nn.Module):
    def __init__(self, num_classes=1000, width=64, depth=4):
        super().__init__()
        self.stem = ConvBNAct{k}(3, width, 3, 2)
        self.blocks = nn.Sequential(*[Residual{k}(width) for _ in range(depth)])
        self.neck = Pyramid{k}(width)
        self.head = nn.Linear(width, num_classes)
        self.apply(init_weights_{k})

    def forward(self, x):
        x = self.stem(x)
        x = self.blocks(x)
        x = self.neck([x, F.avg_pool2d(x, 2), F.avg_pool2d(x, 4)])[0]
        return self.head(x.mean(dim=(2, 3)))
"#;

const VIT_HEADER: &str = r#""""Transformer models."""
from functools import partial

import torch
from torch import nn
"#;

const VIT_BLOCK: &str = r#"

class PatchEmbed{k}(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=768):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class Mlp{k}(nn.Module):
    def __init__(self, dim, hidden, drop=0.0):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return self.drop(self.fc2(self.drop(self.act(self.fc1(x)))))


class Block{k}(nn.Module):
    def __init__(self, dim, heads, mlp_ratio=4.0, drop_path=0.0, norm_layer=nn.LayerNorm):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = norm_layer(dim)
        self.mlp = Mlp{k}(dim, int(dim * mlp_ratio))
        self.drop_path = drop_path

    def forward(self, x):
        y = self.norm1(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class VisionTransformer{k}(nn.Module):
    def __init__(self, num_classes=1000, embed_dim=384, depth=12, heads=6, drop_path_rate=0.1):
        super().__init__()
        self.patch_embed = PatchEmbed{k}(embed_dim=embed_dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, self.patch_embed.num_patches + 1, embed_dim))
        rates = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]
        norm = partial(nn.LayerNorm, eps=1e-6)
        self.blocks = nn.ModuleList([Block{k}(embed_dim, heads, drop_path=r, norm_layer=norm) for r in rates])
        self.norm = norm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)

    def no_weight_decay(self):
        return {"pos_embed", "cls_token"}

    def forward_features(self, x):
        x = self.patch_embed(x)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos_embed
        for block in self.blocks:
            x = block(x)
        return self.norm(x)[:, 0]

    def forward(self, x):
        return self.head(self.forward_features(x))


def vit_small_{k}(pretrained=False, **kwargs):
    model = VisionTransformer{k}(embed_dim=384, depth=12, heads=6, **kwargs)
    if pretrained:
        state = torch.hub.load_state_dict_from_url("https://example.invalid/vit_small.pth", map_location="cpu")
        model.load_state_dict(state["model"])
    return model
"#;

const AUG_HEADER: &str = r#""""Batch augmentation."""
import numpy as np
import torch
"#;

const AUG_BLOCK: &str = r#"

def one_hot_{k}(target, num_classes, on_value=1.0, off_value=0.0):
    target = target.long().view(-1, 1)
    return torch.full((target.size(0), num_classes), off_value, device=target.device).scatter_(1, target, on_value)


def rand_bbox_{k}(size, lam):
    h, w = size[-2:]
    cut = np.sqrt(1.0 - lam)
    ch, cw = int(h * cut), int(w * cut)
    cy, cx = np.random.randint(h), np.random.randint(w)
    y1, y2 = np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h)
    x1, x2 = np.clip(cx - cw // 2, 0, w), np.clip(cx + cw // 2, 0, w)
    return y1, y2, x1, x2


class Mixup{k}:
    def __init__(self, mixup_alpha=0.8, cutmix_alpha=1.0, prob=1.0, switch_prob=0.5, num_classes=1000):
        self.mixup_alpha = mixup_alpha
        self.cutmix_alpha = cutmix_alpha
        self.prob = prob
        self.switch_prob = switch_prob
        self.num_classes = num_classes

    def _params(self):
        if np.random.rand() > self.prob:
            return 1.0, False
        use_cutmix = np.random.rand() < self.switch_prob
        alpha = self.cutmix_alpha if use_cutmix else self.mixup_alpha
        return float(np.random.beta(alpha, alpha)), use_cutmix

    def __call__(self, x, target):
        lam, use_cutmix = self._params()
        if use_cutmix:
            y1, y2, x1, x2 = rand_bbox_{k}(x.shape, lam)
            x[:, :, y1:y2, x1:x2] = x.flip(0)[:, :, y1:y2, x1:x2]
            lam = 1.0 - (y2 - y1) * (x2 - x1) / float(x.shape[-2] * x.shape[-1])
        else:
            x.mul_(lam).add_(x.flip(0).mul_(1.0 - lam))
        y = one_hot_{k}(target, self.num_classes)
        return x, y * lam + y.flip(0) * (1.0 - lam)
"#;

const ENGINE_HEADER: &str = r#""""Training and evaluation loops."""
import logging
import math
import os

import torch
import torch.distributed as dist

from trainer import utils
from trainer.utils import get_rank, get_world_size, is_main_process

logger = logging.getLogger(__name__)
"#;

const ENGINE_BLOCK: &str = r#"

def train_one_epoch_{k}(model, criterion, loader, optimizer, scaler, device, epoch, clip=1.0):
    model.train()
    metrics = utils.MetricLogger0()
    for step, (images, targets) in enumerate(metrics.log_every(loader, 50, f"epoch {epoch}")):
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(images)
            loss = criterion(outputs, targets)
        if not math.isfinite(loss.item()):
            raise RuntimeError(f"loss is {loss.item()} at step {step}")
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        scaler.step(optimizer)
        scaler.update()
        metrics.update(loss=loss.detach(), lr=optimizer.param_groups[0]["lr"])
    metrics.synchronize_between_processes()
    return {name: meter.global_avg for name, meter in metrics.meters.items()}


@torch.no_grad()
def evaluate_{k}(model, criterion, loader, device):
    model.eval()
    totals = torch.zeros(3, device=device)
    for images, targets in loader:
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        outputs = model(images)
        totals[0] += criterion(outputs, targets) * targets.numel()
        totals[1] += (outputs.argmax(dim=1) == targets).sum()
        totals[2] += targets.numel()
    if get_world_size() > 1:
        dist.all_reduce(totals)
    return {"val_loss": (totals[0] / totals[2]).item(), "accuracy": (totals[1] / totals[2]).item()}


def save_checkpoint_{k}(state, directory, epoch):
    if not is_main_process():
        return None
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"checkpoint_{epoch:04d}.pt")
    torch.save(state, path)
    return path


def load_checkpoint_{k}(path, model, optimizer=None):
    try:
        state = torch.load(path, map_location="cpu")
    except FileNotFoundError:
        logger.error("no checkpoint at %s", path)
        raise
    model.load_state_dict(state["model"])
    if optimizer is not None and "optimizer" in state:
        optimizer.load_state_dict(state["optimizer"])
    return state.get("epoch", 0)


def fit_{k}(model, criterion, loaders, optimizer, scheduler, device, epochs, out_dir, start=0):
    train_loader, train_sampler, val_loader = loaders
    scaler = torch.cuda.amp.GradScaler(enabled=False)
    best = math.inf
    for epoch in range(start, epochs):
        train_sampler.set_epoch(epoch)
        stats = train_one_epoch_{k}(model, criterion, train_loader, optimizer, scaler, device, epoch)
        scheduler.step()
        result = evaluate_{k}(model, criterion, val_loader, device)
        stats.update(result)
        if result["val_loss"] < best:
            best = result["val_loss"]
            save_checkpoint_{k}({"model": model.state_dict(), "epoch": epoch}, out_dir, epoch)
        if is_main_process():
            logger.info("epoch %d: %s", epoch, stats)
    return best
"#;

const ENTRY_HEAD: &str = r#""""Entry script: one process per GPU, started by Determined's torch launcher."""
import argparse
import logging

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from trainer import utils
"#;

const ENTRY_TAIL: &str = r#"

def parse_args():
    parser = argparse.ArgumentParser(description="train an image model")
    parser.add_argument("--data", default="/mnt/data/images")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resume", default="")
    parser.add_argument("--output", default="/tmp/out")
    return parser.parse_args()


def main():
    logging.basicConfig(level=logging.INFO)
    args = parse_args()
    utils.init_distributed(args)
    utils.seed_everything(args.seed, utils.get_rank())
    device = torch.device("cuda", args.gpu)
    train_loader, train_sampler = data_0.build_loader_0(args.data, args.batch_size, args.workers)
    val_loader, _ = data_0.build_loader_0(args.data, args.batch_size, args.workers, train=False)
    model = model_0.Network0().to(device)
    model = DDP(model, device_ids=[args.gpu])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    start = 0
    if args.resume:
        start = engine_0.load_checkpoint_0(args.resume, model.module, optimizer)
    best = engine_0.fit_0(
        model,
        criterion,
        (train_loader, train_sampler, val_loader),
        optimizer,
        scheduler,
        device,
        args.epochs,
        args.output,
        start,
    )
    if utils.is_main_process():
        logging.info("best validation loss %.4f", best)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
"#;

/// What the package's modules hold.
#[derive(Clone, Copy)]
enum Shape {
    /// As training repositories are (DeiT, MAE, timm's scripts): mostly
    /// model definitions and augmentation, one data module, one engine,
    /// helpers.
    Typical,
    /// Every module is loaders, training loops and collectives (the most
    /// the analysis can have to look at in 5,000 lines).
    Dense,
}

/// The package: `(path, text)` of each module, about `TARGET_LINES` lines
/// in all: `train.py`, `trainer/utils.py`, and modules of blocks (each
/// template repeated with its names numbered) filled round-robin.
fn package(shape: Shape) -> Vec<(String, String)> {
    let lines = |s: &str| s.lines().count();
    // (kind, header, block, blocks per module), cycled until the target.
    let plan: Vec<(&str, &str, &str, usize)> = match shape {
        Shape::Typical => vec![
            ("data", DATA_HEADER, DATA_BLOCK, 2),
            ("engine", ENGINE_HEADER, ENGINE_BLOCK, 1),
            ("model", MODEL_HEADER, MODEL_BLOCK, 4),
            ("vit", VIT_HEADER, VIT_BLOCK, 4),
            ("aug", AUG_HEADER, AUG_BLOCK, 4),
            ("model", MODEL_HEADER, MODEL_BLOCK, 4),
            ("vit", VIT_HEADER, VIT_BLOCK, 4),
        ],
        Shape::Dense => vec![
            ("data", DATA_HEADER, DATA_BLOCK, 4),
            ("model", MODEL_HEADER, MODEL_BLOCK, 4),
            ("engine", ENGINE_HEADER, ENGINE_BLOCK, 4),
        ],
    };
    let mut utils = UTILS.to_string();
    for k in 0..2 {
        utils.push_str(&UTILS_BLOCK.replace("{k}", &k.to_string()));
    }
    let mut modules: Vec<(String, String)> = vec![("trainer/utils.py".to_string(), utils)];
    let mut total = lines(ENTRY_HEAD) + lines(ENTRY_TAIL) + lines(&modules[0].1) + 2;
    let mut count: Vec<(&str, usize)> = Vec::new();
    'grow: for (kind, header, block, per_module) in plan.iter().cycle() {
        // Once past the first round, the typical package only adds models.
        if matches!(shape, Shape::Typical) && modules.len() > plan.len() && matches!(*kind, "data" | "engine") {
            continue;
        }
        let n = match count.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                count.push((kind, 0));
                0
            }
        };
        let mut text = header.to_string();
        for k in 0..*per_module {
            if total + lines(&text) >= TARGET_LINES {
                break;
            }
            text.push_str(&block.replace("{k}", &k.to_string()));
        }
        total += lines(&text) + 1;
        modules.push((format!("trainer/{kind}_{n}.py"), text));
        if total >= TARGET_LINES {
            break 'grow;
        }
    }
    let mut entry = ENTRY_HEAD.to_string();
    for (name, _) in &modules {
        let stem = name.trim_start_matches("trainer/").trim_end_matches(".py");
        if stem != "utils" {
            entry.push_str(&format!("from trainer import {stem}\n"));
        }
    }
    entry.push_str(ENTRY_TAIL);
    let mut out = vec![
        ("train.py".to_string(), entry),
        (
            "trainer/__init__.py".to_string(),
            "\"\"\"The training package.\"\"\"\n".to_string(),
        ),
    ];
    out.extend(modules);
    out
}

fn env(_: &str) -> Option<String> {
    Some("set".into())
}

/// The experiment with its training code found the way `stagec check`
/// finds it (the entrypoint's script and the package modules it imports),
/// read from memory.
fn project(files: &[(String, String)], with_training: bool) -> Project {
    let root = Path::new("bench");
    let config = Input {
        name: "bench/const.yaml".into(),
        bytes: CONFIG.as_bytes().to_vec(),
    };
    let training = with_training.then(|| {
        let paths: Vec<PathBuf> = files.iter().map(|(n, _)| root.join(n)).collect();
        let mut read = |p: &Path| -> Result<Input, String> {
            files
                .iter()
                .find(|(n, _)| root.join(n) == p)
                .map(|(n, t)| Input {
                    name: format!("bench/{n}"),
                    bytes: t.as_bytes().to_vec(),
                })
                .ok_or_else(|| format!("{} is not in the package", p.display()))
        };
        let (sources, problems) =
            stagec::training::discover::discover(Some(CONFIG), root, None, &paths, &[], &[], &mut read, &mut Vec::new);
        assert!(problems.is_empty(), "{problems:?}");
        sources
    });
    Project {
        config,
        models: Some(Vec::new()),
        inventory: None,
        probe: None,
        searched: "`bench`".into(),
        training,
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn training_package(c: &mut Criterion) {
    let opts = Options {
        env: &env,
        ..Options::default()
    };
    // `STAGEC_BENCH_DUMP=DIR`: the packages written out as projects
    // (`DIR/typical/const.yaml`, …), to measure a whole `stagec check` of
    // them, under callgrind for instance, against another tree's binary.
    if let Some(dir) = std::env::var_os("STAGEC_BENCH_DUMP") {
        for (label, shape) in [("typical", Shape::Typical), ("dense", Shape::Dense)] {
            let root = Path::new(&dir).join(label);
            for (name, text) in package(shape)
                .iter()
                .chain([("const.yaml".to_string(), CONFIG.to_string())].iter())
            {
                let path = root.join(name);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).expect("the dump folder can be made");
                }
                std::fs::write(&path, text).expect("the dump can be written");
            }
        }
    }
    let mut group = c.benchmark_group("training_package");
    group.sample_size(30);
    let mut added = Vec::new();
    for (label, shape) in [("typical", Shape::Typical), ("dense", Shape::Dense)] {
        let files = package(shape);
        let lines: usize = files.iter().map(|(_, t)| t.lines().count()).sum();
        assert!(
            (TARGET_LINES - 200..TARGET_LINES + 400).contains(&lines),
            "{lines} lines"
        );

        // What the check does with the package: every module read, no
        // finding.
        let with = project(&files, true);
        let checked = stagec::compile(&with, &opts);
        let Some(training) = checked.training.as_ref() else {
            panic!("the training code is attached")
        };
        assert_eq!(training.files.len(), files.len(), "every module is read");
        let findings: Vec<&str> = checked
            .diagnostics
            .iter()
            .filter(|d| d.code.starts_with('T'))
            .map(|d| d.code)
            .collect();
        assert!(findings.is_empty(), "the package is free of hazards: {findings:?}");
        let chunks: usize = training.files.iter().map(|f| f.parsed.chunks().len()).sum();
        let parsed: usize = training.files.iter().map(|f| f.parsed.parsed_chunks()).sum();
        println!(
            "{label} package: {} files, {lines} lines, {chunks} top-level chunks, {parsed} parsed by the rules",
            files.len()
        );

        let without = project(&files, false);
        group.bench_function(format!("{label}/check_without_training_code"), |b| {
            b.iter(|| stagec::compile(&without, &opts))
        });
        // Discovery included: the import scan that finds the modules.
        group.bench_function(format!("{label}/check_with_training_code"), |b| {
            b.iter(|| stagec::compile(&project(&files, true), &opts))
        });

        // The added cost as medians of interleaved runs (wall time), and
        // as the time this thread spent on a CPU (Linux's schedstat, which
        // other jobs on a loaded machine inflate less), averaged over
        // batches of about a second (it is updated at scheduler ticks).
        let mut wall = (Vec::new(), Vec::new());
        for _ in 0..61 {
            wall.0.push(timed(|| stagec::compile(&without, &opts)));
            wall.1.push(timed(|| stagec::compile(&project(&files, true), &opts)));
        }
        let (a, b) = (median(wall.0), median(wall.1));
        let cpu = on_cpu_per_run(2000, || stagec::compile(&without, &opts))
            .zip(on_cpu_per_run(60, || stagec::compile(&project(&files, true), &opts)));
        added.push((label, a, b, cpu));
    }
    group.finish();
    for (label, a, b, cpu) in added {
        println!(
            "{label} package, wall: check without the training code {a:.2?}, with it {b:.2?}: the analysis adds {:.2?} (target ≤ 10 ms)",
            b.saturating_sub(a)
        );
        if let Some((a, b)) = cpu {
            println!(
                "{label} package, on-CPU: check without the training code {a:.2?}, with it {b:.2?}: the analysis adds {:.2?}",
                b.saturating_sub(a)
            );
        }
    }
}

fn timed<T>(f: impl FnOnce() -> T) -> Duration {
    let start = std::time::Instant::now();
    let out = f();
    let wall = start.elapsed();
    drop(out);
    wall
}

/// The mean time this thread ran on a CPU per call of `f`, over `n`
/// calls (`/proc/thread-self/schedstat`; `None` where there is none).
fn on_cpu_per_run<T>(n: u32, mut f: impl FnMut() -> T) -> Option<Duration> {
    let on_cpu = || -> Option<u64> {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        text.split_whitespace().next()?.parse().ok()
    };
    let before = on_cpu()?;
    for _ in 0..n {
        drop(f());
    }
    let after = on_cpu()?;
    Some(Duration::from_nanos(after.saturating_sub(before) / u64::from(n.max(1))))
}

criterion_group!(benches, training_package);
criterion_main!(benches);
