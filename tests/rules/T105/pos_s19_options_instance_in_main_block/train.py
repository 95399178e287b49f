# stagec fixture: s19 pos_options_instance_in_main_block (issue 22, class 9: the options object is
#                 made in the script's `if __name__ == "__main__":` block, a module-level name, and
#                 its `parse()` method returns the parsed flags; the step loop passes over the
#                 loader again each time it runs out)
# named: on the command line (a contrastive pre-training script)
# runtime: multi-rank (init_process_group)
# expect:
#   T105 at 26:9 num_workers=5 starts 5 worker processes on every rank …
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from src.options import Options


def train(opt, model, optimizer, step):
    dataset = torch.utils.data.TensorDataset(torch.randn(4096, 16))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(
        dataset,
        sampler=sampler,
        batch_size=opt.per_gpu_batch_size,
        drop_last=True,
        num_workers=opt.num_workers,
    )
    epoch = 0
    while step < opt.total_steps:
        sampler.set_epoch(epoch)
        for (batch,) in loader:
            step += 1
            loss = model(batch.cuda()).pow(2).mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        epoch += 1


if __name__ == "__main__":
    options = Options()
    opt = options.parse()
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(16, 16).cuda())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    train(opt, model, optimizer, 0)
