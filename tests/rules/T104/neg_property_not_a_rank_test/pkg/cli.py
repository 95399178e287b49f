# named: on the command line
# expect: none
# ----
import torch

from pkg import Denoiser, Trainer


def train(steps=1000, save_every=100, path="denoiser.pt"):
    trainer = Trainer(Denoiser())
    if torch.cuda.is_available():
        trainer = trainer.cuda()
    for i in range(steps):
        loss = trainer.train_step(torch.randn(32, 64))
        if trainer.accelerator.is_main_process:
            print(f"{i}: {loss:.4f}")
        if i % save_every == 0 and trainer.warmed_up:
            trainer.save(path)
    trainer.save(path)


if __name__ == "__main__":
    train()
