# stagec fixture: s8 neg_skip_on_local_batch, second script (as dlrm loads the same global
#                 batch on every rank and slices it)
# named: on the command line with train.py (a script of its own: neither imports the other)
# runtime: multi-rank, but no sampler shards the samples: every rank draws the same batches,
#          so a skip on what the batch holds is taken by every rank alike
# expect: nothing
# ----
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader


def main(model, dataset, opt):
    dist.init_process_group("nccl")
    model = DDP(model.cuda())
    train_ld = DataLoader(dataset, batch_size=2048)
    for j, batch in enumerate(train_ld):
        x, y = batch
        if x.size(0) % dist.get_world_size() != 0:
            continue
        model(x).mean().backward()
        opt.step()
