# stagec fixture: s25 pos_test_loader_kept_and_passed_each_evaluation (issue 22, class 9; the
#                 look-alike of neg_s25_test_loader_made_at_each_evaluation: the test loader is
#                 made once and each evaluation passes over it again, through the same
#                 progress-bar helper, so its four workers restart at every evaluation)
# named: on the command line (`torchrun --nproc_per_node 8 train.py`)
# expect:
#   T105 at 24:73 made once, passed over at each of the 30 evaluations.
# ----
import torch
import torch.distributed as dist
import tqdm
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def dist_tqdm(obj, *args, **kwargs):
    if dist.get_rank() == 0:
        return tqdm.tqdm(obj, *args, **kwargs)
    return obj


def get_test_loader(batch_size):
    test_set = TensorDataset(torch.randn(256, 8))
    sampler = DistributedSampler(test_set, shuffle=False)
    return DataLoader(test_set, batch_size=batch_size, sampler=sampler, num_workers=4)


def run_test(net, loader):
    for i, (x,) in enumerate(dist_tqdm(loader)):
        with torch.no_grad():
            net(x)


def train(net, data_loader, optimizer):
    for (x,) in dist_tqdm(data_loader):
        net(x).mean().backward()
        optimizer.step()


def main():
    dist.init_process_group("nccl")
    net = torch.nn.Linear(8, 8)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    train_set = TensorDataset(torch.randn(1024, 8))
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=4, persistent_workers=True)
    test_loader = get_test_loader(32)
    for epoch in range(30):
        sampler.set_epoch(epoch)
        train(net, train_loader, optimizer)
        run_test(net, test_loader)


if __name__ == "__main__":
    main()
