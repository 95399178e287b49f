# stagec fixture: neg_s17_seed_scoped_by_a_context_manager
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: a self-supervised framework seeds its model's weight init with a fixed seed inside
#          a context manager that saves the RNG state on entry and gives it back on exit; the
#          ranks' own draws (the noise of each step) go on from the state they had, which the
#          script never made equal.
# expect: none
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_rng_state():
    return {"torch": torch.get_rng_state()}


def set_rng_state(state):
    torch.set_rng_state(state["torch"])


class set_torch_seed:
    def __init__(self, seed):
        self.rng_state = get_rng_state()
        torch.manual_seed(seed)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_rng_state(self.rng_state)


def main():
    dist.init_process_group(backend="nccl")
    with set_torch_seed(0):
        net = torch.nn.Linear(64, 64)
    model = torch.nn.parallel.DistributedDataParallel(net.cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = TensorDataset(torch.zeros(4096, 64))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    for epoch in range(100):
        sampler.set_epoch(epoch)
        for (x,) in loader:
            x = x.cuda()
            noise = torch.randn_like(x)
            loss = (model(x + noise) - x).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
