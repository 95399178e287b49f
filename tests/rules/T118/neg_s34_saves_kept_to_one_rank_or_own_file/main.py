# stagec fixture: s34 neg_saves_kept_to_one_rank_or_own_file (issue 22, class "other"; the
#                 look-alikes of pos_s34_best_checkpoint_saved_by_every_rank: each save is kept to
#                 one rank by a test the code names its own way, or writes each rank's own file, or
#                 writes to memory, or never runs)
# named: on the command line (`torchrun --nproc_per_node=8 main.py`)
# expect: nothing
# ----
import argparse
import io
import os

import torch
import torch.distributed as dist
import transformers


def is_first_worker():
    return not dist.is_available() or not dist.is_initialized() or dist.get_rank() == 0


def save_checkpoint(state, filename):
    torch.save(state, filename)


class QuietTrainer(transformers.Trainer):
    def _save(self, output_dir=None, state_dict=None):
        # transformers calls this on the main process only.
        torch.save(self.args, os.path.join(output_dir, "training_args.bin"))


@torch.no_grad()
def never_called(model, args):
    torch.save(model.state_dict(), os.path.join(args.output, "unused.pth"))


def train(args, model, optimizer, loader):
    rank = dist.get_rank()
    for epoch in range(args.epochs):
        loader.sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if is_first_worker():
            save_checkpoint({"model": model.module.state_dict()}, os.path.join(args.output, "last.pth"))
        save_cond = (args.rank == 0) and (epoch % 10 == 0)
        if save_cond:
            torch.save(model.module.state_dict(), os.path.join(args.output, f"epoch_{epoch}.pth"))
        torch.save(model.module(x).detach().cpu(), os.path.join(args.output, f"preds_rank{rank}.pt"))
        buffer = io.BytesIO()
        torch.save(model.module.state_dict(), buffer)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", default="out")
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    args.rank = dist.get_rank()
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 10).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.randn(256, 32), torch.randint(0, 10, (256,)))
    sampler = torch.utils.data.distributed.DistributedSampler(data)
    loader = torch.utils.data.DataLoader(data, batch_size=32, sampler=sampler)
    train(args, model, optimizer, loader)


if __name__ == "__main__":
    main()
