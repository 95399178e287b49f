# stagec fixture: s9 pos_forward_after_rank_guard (issue 22, class 2; review 13a's MetaCLIP mark:
#                 an evaluation that sends every rank but the master away first)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank: init_process_group, DDP of a torchvision ResNet (BatchNorm buffers)
# context: `evaluate` runs its forward under no_grad (DDP then broadcasts at most once and
#          skips the master's next broadcast: the counts still match, silent); `probe` runs
#          its forwards with gradients on, each one broadcasting.
# expect:
#   T104 at 40:20 after `continue` past a loop's rest on the other ranks, only rank 0 runs the
#        DDP forward.
# ----
import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP


def is_master(args):
    return args.rank == 0


def evaluate(args, model, loader):
    metrics = {}
    if not is_master(args):
        return metrics
    model.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in loader:
            logits = model(images.cuda())
            correct += (logits.argmax(-1) == labels.cuda()).sum().item()
    metrics["acc"] = correct
    return metrics


def probe(args, model, batches):
    for images in batches:
        if dist.get_rank() != 0:
            continue
        features = model(images.cuda())
        print(features.norm())


def main(args, train_loader, val_loader):
    dist.init_process_group("nccl")
    args.rank = dist.get_rank()
    model = DDP(torchvision.models.resnet50().cuda(), device_ids=[args.local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for images, labels in train_loader:
            loss = torch.nn.functional.cross_entropy(model(images.cuda()), labels.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        evaluate(args, model, val_loader)
        probe(args, model, val_loader)
