# stagec fixture: pos_loader_pairs_unpacked_from_builder (issue 22, class 9; a point-cloud pretraining
#   repository's shape: a builder returns `(sampler, loader)`, the runner unpacks two calls at once,
#   `(a, b), (c, d), = f(x), f(y)`, and the runner reaches the script through two renaming imports)
# named: on the command line (`main.py`, `tools/runner.py` and this file)
# runtime: multi-rank (init_process_group under `--launcher pytorch`, DistributedSampler)
# expect:
#   T105 at 20:46 num_workers=8 (the parser's default) on every rank, restarted at each epoch's pass
# ----
import torch


def dataset_builder(args, split):
    dataset = torch.utils.data.TensorDataset(torch.randn(1024, 3))
    if args.launcher != "none":
        sampler = torch.utils.data.distributed.DistributedSampler(dataset, shuffle=split == "train")
    else:
        sampler = None
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=32,
                                             sampler=sampler,
                                             num_workers=int(args.num_workers),
                                             drop_last=split == "train")
    return sampler, dataloader
