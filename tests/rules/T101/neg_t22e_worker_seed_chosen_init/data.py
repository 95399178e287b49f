# stagec fixture: t22e neg_worker_seed_chosen_init (issue 22, class 3 traps; M7's look-alikes)
# named: on the command line alone
# runtime: multi-rank: the process group is initialised and every rank seeds torch with `seed`
# context: the init function is chosen into a local (`init = reseed if ... else None`) and the
#          worker count is a constructor default stagec does not resolve (it only matters that
#          the loader has workers for the init function to run in).
# expect: none.
#   The same init function and the same equal seeding, but one loader has num_workers=0 (the
#   init function never runs) and the other chooses between two init functions (stagec
#   cannot tell which one runs, so it says nothing).
# ----
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def reseed(_):
    info = torch.utils.data.get_worker_info()
    wid = info.id
    pick = np.random.choice(len(np.random.get_state()[1]), 1)
    return np.random.seed(np.random.get_state()[1][pick] + wid)


def reseed_from_torch(worker_id):
    np.random.seed(torch.initial_seed() % 2**32)


class Jitter(Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        return np.random.uniform(0.5, 1.0)


class Loaders:
    def __init__(self, batch_size, workers=None, reseed_workers=False):
        self.batch_size = batch_size
        self.workers = workers if workers is not None else batch_size * 2
        self.reseed_workers = reseed_workers

    def train(self, ds):
        init = reseed if self.reseed_workers else None
        return DataLoader(ds, batch_size=self.batch_size, sampler=DistributedSampler(ds), num_workers=0, worker_init_fn=init)

    def val(self, ds):
        init = reseed if self.reseed_workers else reseed_from_torch
        return DataLoader(
            ds, batch_size=self.batch_size, sampler=DistributedSampler(ds), num_workers=self.workers, worker_init_fn=init
        )


def main(seed, model, opt):
    dist.init_process_group("nccl")
    torch.manual_seed(seed)
    loaders = Loaders(8, reseed_workers=True)
    for x in loaders.train(Jitter()):
        pass
    for x in loaders.val(Jitter()):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
