# stagec fixture: s34 pos_best_checkpoint_saved_by_every_rank (issue 22, class "other"; review
#                 40b's RSP M34 and review 45b's hyp_metric M31: the periodic save is kept to rank
#                 0, but the best checkpoint and the embeddings are written by every rank)
# named: on the command line (`torchrun --nproc_per_node=8 main.py`)
# expect: T118 at 38:13 (every rank writes best_ckpt.pth)
# expect: T118 at 46:5 (every rank writes the embeddings file, through the helper)
# ----
import argparse
import os

import torch
import torch.distributed as dist


def validate(model, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


def train(args, model, optimizer, train_loader, val_loader):
    best_acc1 = 0
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), os.path.join(args.output, f"epoch_{epoch}.pth"))
        acc1 = validate(model, val_loader)
        if acc1 > best_acc1:
            save_state = {"model": model.module.state_dict(), "epoch": epoch}
            save_path = os.path.join(args.output, "best_ckpt.pth")
            torch.save(save_state, save_path)
            best_acc1 = acc1
    save_embeddings(args, model, val_loader)


def save_embeddings(args, model, loader):
    with torch.no_grad():
        emb = torch.cat([model.module(x) for x, _ in loader])
    torch.save(emb.cpu(), args.output + "/" + "val_embeddings.pt")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", default="out")
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(32, 10).cuda())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.utils.data.TensorDataset(torch.randn(256, 32), torch.randint(0, 10, (256,)))
    sampler = torch.utils.data.distributed.DistributedSampler(data)
    train_loader = torch.utils.data.DataLoader(data, batch_size=32, sampler=sampler)
    train(args, model, optimizer, train_loader, train_loader)


if __name__ == "__main__":
    main()
