# stagec fixture: h01_neg_unseeded_ranks
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 sample_train.py",
#          resources.slots_per_trial: 4
# runtime: torch.distributed; nothing seeds the global torch RNG
# expect: no finding.
#   Without a seeding call, each process's default CPU generator starts from its own
#   nondeterministic seed, so the samplers of different ranks already draw different streams.
#   (Not reproducible run to run, but not the cross-rank duplication T101 is about.) Note that a
#   fresh torch.Generator() without manual_seed is NOT random: it always starts at the same
#   fixed seed, so `generator=torch.Generator()` would make every rank identical again.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


def main() -> None:
    dist.init_process_group("gloo")
    data = TensorDataset(torch.randn(20000, 12), torch.randn(20000, 1))
    loader = DataLoader(data, batch_size=100, sampler=RandomSampler(data, replacement=True, num_samples=5000))
    model = nn.parallel.DistributedDataParallel(nn.Linear(12, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(3):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if dist.get_rank() == 0:
            print(f"epoch {epoch}: {loss.item():.4f}")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
