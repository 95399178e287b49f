# stagec fixture: pos_s35_best_saved_under_a_metric_test (issue 22, class "other"; review 40b:
#                 RSP's Scene Recognition/main.py)
# named: on the command line (`torchrun --nproc_per_node=8 main.py`)
# expect:
#   T118 at 53:13 the periodic checkpoint is kept to rank 0, but the best one is
#        saved under `acc1 > best_acc1` alone, and `acc1` is all-reduced, so
#        every rank takes the branch in the same epoch and writes the same file.
#        The metric's call reads a model built with `device_ids=[local_rank]`:
#        that does not make the test one of the rank.
# ----
import os

import torch
import torch.distributed as dist
from torch import nn


def validate(model, data):
    correct = torch.zeros(1, device="cuda")
    with torch.no_grad():
        for x, y in data:
            correct += (model(x.cuda()).argmax(1) == y.cuda()).sum()
    dist.all_reduce(correct)
    return correct.item() / (len(data) * dist.get_world_size())


def train_one_epoch(model, opt, data):
    for x, y in data:
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = nn.parallel.DistributedDataParallel(nn.Linear(8, 4).cuda(), device_ids=[local_rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.randn(16, 8), torch.randint(0, 4, (16,))) for _ in range(10)]
    out = os.environ.get("OUTPUT", "out")
    best_acc1 = 0.0
    for epoch in range(100):
        train_one_epoch(model, opt, data)
        if dist.get_rank() == 0 and epoch % 10 == 0:
            torch.save(model.module.state_dict(), os.path.join(out, "ckpt.pth"))
        acc1 = validate(model, data)
        if acc1 > best_acc1:
            state = {"model": model.module.state_dict(), "epoch": epoch, "acc1": acc1}
            save_path = os.path.join(out, "best_ckpt.pth")
            print(f"{save_path} saving")
            torch.save(state, save_path)
            best_acc1 = acc1


if __name__ == "__main__":
    main()
