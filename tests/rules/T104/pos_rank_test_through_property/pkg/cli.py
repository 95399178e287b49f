# named: on the command line
# expect:
#   T104 at 20:13 `trainer.save(path)` enters the barrier in `Trainer.save` only where the property
#        `trainer.is_main` (the main process) holds
# ----
import torch

from pkg import Denoiser, Trainer


def train(steps=1000, save_every=100, path="denoiser.pt"):
    trainer = Trainer(Denoiser())
    if torch.cuda.is_available():
        trainer = trainer.cuda()
    for i in range(steps):
        loss = trainer.train_step(torch.randn(32, 64))
        if trainer.is_main:
            print(f"{i}: {loss:.4f}")
        if i % save_every == 0 and i > 0 and trainer.is_main:
            trainer.save(path)
    trainer.save(path)


if __name__ == "__main__":
    train()
