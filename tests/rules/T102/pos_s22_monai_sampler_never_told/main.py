# stagec fixture: pos_s22_monai_sampler_never_told (issue 22, class 3; SwinUNETR pre-training's shape:
#   MONAI's DistributedSampler, torch's with `even_divisible` first, shuffles by seed + epoch, and
#   the step loop never tells it the epoch)
# named: on the command line (a torchrun script)
# expect:
#   T102 at 16:21 DistributedSampler shuffles with seed + epoch, but set_epoch is never called on it …
# ----
import torch
import torch.distributed as dist
from monai.data import DataLoader, Dataset, DistributedSampler


def main():
    dist.init_process_group("nccl")
    train_ds = Dataset(data=[{"image": i} for i in range(100)])
    train_sampler = DistributedSampler(train_ds, True, None, None, True)
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
