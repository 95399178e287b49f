# stagec fixture: s10 neg_generator_dropped (issue 22, class 3; the look-alikes of
#                 pos_s10_generator_dropped)
# named: on the command line
# runtime: single process (no launcher, no process group)
# expect: nothing
#   - `grouped` passes its generator on;
#   - `fresh_order` has no generator to pass (generator=None is all it can give);
#   - `labelled` calls a helper that takes a generator but draws nothing with it;
#   - `local_order` drops its generator in code that splits nothing by world size, in a
#     single process: there are no other ranks to agree with.
# ----
import torch


def indices(n, world_size, generator=None):
    return torch.randperm(n, generator=generator).tolist()[: n - n % world_size]


def names(n, generator=None):
    return [f"item{i}" for i in range(n)]


def grouped(n, world_size, generator=None):
    return indices(n, world_size, generator=generator)


def fresh_order(n, world_size):
    return indices(n, world_size, generator=None)


def labelled(n, world_size, generator=None):
    return names(n, generator=None)[:world_size]


def shuffled(n, generator=None):
    return torch.randperm(n, generator=generator).tolist()


def local_order(n, generator=None):
    return shuffled(n, generator=None)
