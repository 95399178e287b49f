# stagec fixture: t22c neg_t22c_oom_single_process
# context: const.yaml entrypoint "python3 train.py", resources.slots_per_trial: 1
# runtime: one process, no torch.distributed
# expect: none
#   The same OOM-skipping loop as pos_t22c_oom_skip_batch, in a single process: there is no
#   other rank to wait in a collective, so skipping a batch only skips a step.
# ----
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train_one_epoch(model, loader, opt):
    for images, targets in loader:
        try:
            loss = nn.functional.cross_entropy(model(images.cuda()), targets.cuda())
            opt.zero_grad()
            loss.backward()
            opt.step()
        except RuntimeError as e:
            if "out of memory" in str(e):
                torch.cuda.empty_cache()
                continue
            raise


def main():
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 64 * 64, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = TensorDataset(torch.randn(4096, 3, 64, 64), torch.randint(0, 10, (4096,)))
    for _ in range(10):
        train_one_epoch(model, DataLoader(data, batch_size=32, shuffle=True), opt)


if __name__ == "__main__":
    main()
