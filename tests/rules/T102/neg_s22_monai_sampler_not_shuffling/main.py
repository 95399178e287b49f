# stagec fixture: neg_s22_monai_sampler_not_shuffling (look-alike of pos_s22_monai_sampler_never_told:
#   MONAI's fifth positional argument is `shuffle`, here False: one fixed order is what it asks)
# named: on the command line (a torchrun script)
# expect: nothing
# ----
import torch
import torch.distributed as dist
from monai.data import DataLoader, Dataset, DistributedSampler


def main():
    dist.init_process_group("nccl")
    train_ds = Dataset(data=[{"image": i} for i in range(100)])
    train_sampler = DistributedSampler(train_ds, True, None, None, False)
    loader = DataLoader(train_ds, batch_size=2, sampler=train_sampler, num_workers=0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1).cuda())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    step = 0
    while step < 10000:
        for batch in loader:
            loss = model(batch["image"].float().view(-1, 1).cuda()).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1


if __name__ == "__main__":
    main()
