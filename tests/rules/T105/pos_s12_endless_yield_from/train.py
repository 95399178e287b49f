# stagec fixture: pos_s12_endless_yield_from (issue 22, class 9: guided-diffusion/MDT's load_data)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group, DDP)
# expect:
#   T105 at 15:72 the generator passes over the loader again and again (`while True:
#        yield from loader`); each pass restarts its one worker on every rank.
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset


def load_data(batch_size):
    dataset = TensorDataset(torch.randn(1000, 8))
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=1, drop_last=True)
    while True:
        yield from loader


def main():
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = load_data(16)
    for step in range(1000):
        (x,) = next(data)
        loss = model(x.cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
