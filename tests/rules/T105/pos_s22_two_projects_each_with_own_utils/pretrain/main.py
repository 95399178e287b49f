# stagec fixture: pos_s22_two_projects_each_with_own_utils (the second project's script, SwinUNETR's
#   layout: `python main.py` in its own folder, whose `utils/data_utils.py` is another file of the
#   same module name as the first project's)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import torch
import torch.distributed as dist
from utils.data_utils import get_loader


def main():
    dist.init_process_group("nccl")
    train_loader, val_loader = get_loader(4)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step = 0
    while step < 10000:
        for x in train_loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1


if __name__ == "__main__":
    main()
