# stagec fixture: neg_s22_loaders_returned_in_a_list_other_entry (the script)
# named: beside the other files, as pre-commit passes them
# expect: nothing in this file
# ----
import torch
import torch.distributed as dist

from data_utils import get_loader


def main():
    dist.init_process_group("nccl")
    loader = get_loader()
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader[0]:
        loss = model(x.cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    for epoch in range(100):
        for x in loader[1]:
            print(model(x.cuda()).mean())


if __name__ == "__main__":
    main()
