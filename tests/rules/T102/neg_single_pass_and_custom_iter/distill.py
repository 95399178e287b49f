# stagec fixture: h02_neg_single_pass_and_custom_iter
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 distill.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed
# expect: no finding.
#   - teacher_sampler: shuffle=False, the order never depends on the epoch.
#   - stream_sampler: torch's DistributedSampler with shuffle on, but its loader is iterated in a
#     single pass bounded by max_steps (no enclosing epoch loop), so only epoch 0 is ever drawn.
#   - ChunkSampler subclasses DistributedSampler and overrides __iter__ without reading
#     self.epoch: set_epoch would change nothing.
# ----
import itertools
import math

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class ChunkSampler(DistributedSampler):
    """Contiguous, unshuffled chunk per rank (keeps files local to a node)."""

    def __iter__(self):
        per_rank = math.ceil(len(self.dataset) / self.num_replicas)
        start = self.rank * per_rank
        return iter(range(start, min(start + per_rank, len(self.dataset))))


def main(max_steps: int = 2000) -> None:
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank % torch.cuda.device_count())
    teacher_inputs = TensorDataset(torch.randn(20000, 64))
    stream = TensorDataset(torch.randn(500000, 64))

    teacher_sampler = DistributedSampler(teacher_inputs, shuffle=False)
    cache = [x for (x,) in DataLoader(teacher_inputs, batch_size=512, sampler=teacher_sampler)]

    stream_sampler = DistributedSampler(stream, seed=11)
    stream_loader = DataLoader(stream, batch_size=256, sampler=stream_sampler, num_workers=4)
    local_loader = DataLoader(stream, batch_size=256, sampler=ChunkSampler(stream))

    student = nn.parallel.DistributedDataParallel(nn.Linear(64, 64).cuda())
    opt = torch.optim.Adam(student.parameters(), lr=1e-3)
    for step, ((x,), (z,)) in enumerate(itertools.islice(zip(stream_loader, local_loader), max_steps)):
        target = cache[step % len(cache)][: len(x)].cuda()
        loss = nn.functional.mse_loss(student(x.cuda() + 0 * z.cuda()), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
