# stagec fixture: pos_s17_benchmark_in_probe_eval_script
# named: on the command line (`torchrun --nproc_per_node 8 eval.py`)
# context: a frozen-encoder evaluation script: its name says evaluation, but its `main` trains a
#          linear probe for 20 epochs. It seeds torch and turns benchmarking on at import: the
#          probe's accuracy then varies from run to run under the same seed.
# expect:
#   T108 at 15:1 cudnn.benchmark = True in a script that seeds torch and trains a probe
# ----
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

_GLOBAL_SEED = 0
torch.manual_seed(_GLOBAL_SEED)
torch.backends.cudnn.benchmark = True


def main():
    dist.init_process_group("nccl")
    data = TensorDataset(torch.randn(1000, 3, 32, 32), torch.randint(0, 10, (1000,)))
    sampler = DistributedSampler(data)
    loader = DataLoader(data, sampler=sampler, batch_size=32)
    encoder = torch.nn.Conv2d(3, 8, 3).cuda().eval()
    probe = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8 * 30 * 30, 10).cuda())
    optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
    for epoch in range(20):
        sampler.set_epoch(epoch)
        for x, y in loader:
            with torch.no_grad():
                features = encoder(x.cuda()).flatten(1)
            loss = torch.nn.functional.cross_entropy(probe(features), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
