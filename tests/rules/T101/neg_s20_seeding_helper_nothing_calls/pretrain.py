# stagec fixture: neg_s20_seeding_helper_nothing_calls (the script)
# named: on the command line
# ----
import torch
import torch.distributed as dist

from data import get_loader
from param import parse_args


def main():
    args = parse_args()
    dist.init_process_group("nccl")
    torch.cuda.set_device(args.local_rank)
    loader = get_loader([(1, 2)] * 64, ["user {} item {}"], workers=args.num_workers, distributed=True)
    model = torch.nn.Linear(4, 4).cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank])
    opt = torch.optim.AdamW(model.parameters())
    for epoch in range(3):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            loss = model(torch.zeros(4, 4).cuda()).sum()
            loss.backward()
            opt.step()
            opt.zero_grad()


if __name__ == "__main__":
    main()
