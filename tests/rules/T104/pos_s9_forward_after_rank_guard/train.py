# stagec fixture: s9 pos_forward_after_rank_guard (issue 22, class 2; review 13a's MetaCLIP mark:
#                 an evaluation that sends every rank but the master away first)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank: init_process_group, DDP of a torchvision ResNet (BatchNorm buffers)
# expect:
#   T104 at 28:22 after `if not is_master(args): return`, only the master runs the rest of
#        `evaluate`, and with it the DDP forward.
#   T104 at 38:20 the same with `continue` past a loop's rest on the other ranks.
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
