# stagec fixture: pos_workers_from_run_config_via_launcher (issue 22, class 9: msn's shape)
# named: on the command line with main.py
# runtime: mp.spawn in main.py: one process per device
# expect:
#   T105 at 19:71 the loader `init_data` builds with the caller's `num_workers`: in `main(args)`
#        it is `args['data']['num_workers']` (1 where the file leaves it out), and `args` is the
#        YAML file main.py loads at run time (its `--fname` default, configs.yaml, is not in
#        the project, so the run names its own: the one file that sets the key says 10). `main`
#        is called as `run(params)` (imported under another name); the script's own `main()`
#        below would raise before its body runs and binds nothing.
# ----
import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def init_data(batch_size, num_workers=8, world_size=1, rank=0):
    data = TensorDataset(torch.randn(64, 4))
    sampler = DistributedSampler(data, num_replicas=world_size, rank=rank)
    loader = DataLoader(data, sampler=sampler, batch_size=batch_size, num_workers=num_workers)
    return (loader, sampler)


def main(args):
    num_workers = 1 if "num_workers" not in args["data"] else args["data"]["num_workers"]
    (loader, sampler) = init_data(batch_size=args["data"]["batch_size"], num_workers=num_workers, world_size=2)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x.sum()


if __name__ == "__main__":
    main()
