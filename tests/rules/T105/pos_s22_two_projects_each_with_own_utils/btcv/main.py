# stagec fixture: pos_s22_two_projects_each_with_own_utils (the first project's script)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import torch
import torch.distributed as dist
from utils.data_utils import get_loader


def main():
    dist.init_process_group("nccl")
    loader = get_loader()
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(100):
        loader.sampler.set_epoch(epoch)
        for x in loader:
            loss = model(x.cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
