# stagec fixture: s26 pos_tyro_dataclass_options (issue 22, class 9; LGM-style options: a
#                 dataclass parsed from the command line by `tyro.cli`, its defaults the run's
#                 values unless a flag replaces them)
# named: on the command line (`accelerate launch --multi_gpu main.py`)
# expect:
#   T105 at 23:9 opt.num_workers = 8 (the dataclass's default), a loader passed over every
#        epoch
# ----
import torch
import tyro
from accelerate import Accelerator

from core.options import Options


def main():
    opt = tyro.cli(Options)
    accelerator = Accelerator()
    model = torch.nn.Linear(16, 16)
    train_dataloader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(1024, 16)),
        batch_size=opt.batch_size,
        num_workers=opt.num_workers,
        shuffle=True,
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=opt.lr)
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for epoch in range(opt.num_epochs):
        for (x,) in train_dataloader:
            loss = model(x).pow(2).mean()
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()


if __name__ == "__main__":
    main()
