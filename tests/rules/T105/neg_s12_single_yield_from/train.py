# stagec fixture: neg_s12_single_yield_from (issue 22, class 9: the look-alike of
#                 pos_s12_endless_yield_from)
# named: on the command line (a torchrun script)
# runtime: multi-rank (init_process_group, DDP)
# expect: nothing. The generator hands the loader's batches on with
#   `yield from loader` once: the training runs one pass, by iteration count,
#   and the workers start once.
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, TensorDataset


def load_data(batch_size):
    dataset = TensorDataset(torch.randn(100000, 8))
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=4, drop_last=True)
    yield from loader


def main():
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for (x,) in load_data(16):
        loss = model(x.cuda()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
