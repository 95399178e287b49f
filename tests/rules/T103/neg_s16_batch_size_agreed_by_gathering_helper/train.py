# stagec fixture: neg_s16_batch_size_agreed_by_gathering_helper
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# context: mmf's evaluation loop: a batch is skipped when `validate_batch_sizes(n)` says the
#          ranks' sizes differ. The helper gathers every rank's size and compares them all, so
#          every rank gets the same answer and skips the step together: the skip is agreed.
# expect: none
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def gather_tensor(tensor):
    world_size = dist.get_world_size()
    out = [torch.zeros_like(tensor) for _ in range(world_size)]
    dist.all_gather(out, tensor)
    return torch.stack(out, dim=0)


def validate_batch_sizes(my_batch_size):
    batch_size_tensor = torch.IntTensor([my_batch_size]).cuda()
    all_batch_sizes = gather_tensor(batch_size_tensor)
    for j, other in enumerate(all_batch_sizes.data):
        if other != my_batch_size:
            return False
    return True


def main():
    dist.init_process_group(backend="nccl")
    data = TensorDataset(torch.randn(1000, 64), torch.randint(0, 10, (1000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=32, sampler=sampler)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(64, 10).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            x, y = batch
            if not validate_batch_sizes(x.size(0)):
                continue
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
