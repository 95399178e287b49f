# stagec fixture: s9 neg_forward_after_other_guard (issue 22, class 2: the look-alikes of an
#                 evaluation behind a guard that sends the other ranks away)
# named: on the command line (a torchrun script, no config)
# runtime: multi-rank: init_process_group, DDP of a torchvision ResNet (BatchNorm buffers)
# expect: none
#   - the guard sends ranks away on a test that is not the rank (`if not loader: return`);
#   - the guard's body leaves only on a further test (`if args.quick: return`);
#   - the guard only logs, every rank goes on;
#   - the rank guard comes after the forward.
# ----
import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP


def evaluate(args, model, loader):
    if not loader:
        return {}
    if dist.get_rank() != 0:
        if args.quick:
            return {}
        print("evaluating as well")
    if dist.get_rank() != 0:
        print("waiting for the master")
    with torch.no_grad():
        correct = sum((model(x.cuda()).argmax(-1) == y.cuda()).sum().item() for x, y in loader)
    if dist.get_rank() != 0:
        return {}
    return {"acc": correct}


def main(args, train_loader, val_loader):
    dist.init_process_group("nccl")
    model = DDP(torchvision.models.resnet50().cuda(), device_ids=[args.local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        for images, labels in train_loader:
            loss = torch.nn.functional.cross_entropy(model(images.cuda()), labels.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        evaluate(args, model, val_loader)
