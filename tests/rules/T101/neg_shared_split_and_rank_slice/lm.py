# stagec fixture: h01_neg_shared_split_and_rank_slice
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 lm.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed (torchrun), plain torch code, literal seed 1234 on every rank
# expect: no finding.
#   - random_split without generator=: the train/validation split MUST be identical on every
#     rank (otherwise one rank trains on another rank's validation samples); the shared literal
#     seed gives exactly that. A rank-offset generator would be the bug.
#   - torch.randperm without generator= is sliced by rank (order[rank::world]): the shared
#     permutation is what makes the slices disjoint.
#   - torch.manual_seed(1234) itself is never reported: literal seeds are intentional.
# ----
import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Subset, random_split


class TokenWindows(torch.utils.data.Dataset):
    def __init__(self, tokens: torch.Tensor, width: int = 256):
        self.tokens, self.width = tokens, width

    def __len__(self):
        return (len(self.tokens) - 1) // self.width

    def __getitem__(self, i):
        chunk = self.tokens[i * self.width:(i + 1) * self.width + 1]
        return chunk[:-1], chunk[1:]


def main() -> None:
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    torch.manual_seed(1234)

    dataset = TokenWindows(torch.randint(0, 32000, (2_000_000,)))
    n_val = len(dataset) // 50
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val])

    model = nn.parallel.DistributedDataParallel(nn.Embedding(32000, 256).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    for epoch in range(2):
        order = torch.randperm(len(train_set))
        mine = Subset(train_set, order[rank::world].tolist())
        for x, y in DataLoader(mine, batch_size=16, num_workers=2):
            loss = model(x.cuda()).float().pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    val_part = Subset(val_set, list(range(rank, len(val_set), world)))
    with torch.no_grad():
        total = sum(model(x.cuda()).float().pow(2).mean().item() for x, _ in DataLoader(val_part, batch_size=32))
    result = torch.tensor([total], device="cuda")
    dist.all_reduce(result)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
