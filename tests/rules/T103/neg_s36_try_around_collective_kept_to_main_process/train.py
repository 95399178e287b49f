# stagec fixture: neg_s36_try_around_collective_kept_to_main_process (issue 22, review 47b: MuseTalk's train.py)
# named: on the command line (`accelerate launch train.py`)
# runtime: multi-rank (Accelerator)
# expect: nothing
#   the try block saves under `if accelerator.is_main_process:`; an error
#   there skips a `save_state` that only the main process runs anyway, so no
#   other rank waits in it, and every rank meets again at
#   `wait_for_everyone()` after the block. (That `save_state` is kept to one
#   rank at all is T104's finding, not this rule's.)
# ----
import time

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def save_models(accelerator, net, save_dir, step):
    torch.save(accelerator.unwrap_model(net).state_dict(), f"{save_dir}/unet-{step}.pth")


def main():
    accelerator = Accelerator()
    net = torch.nn.Linear(16, 16)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    loader = DataLoader(TensorDataset(torch.randn(512, 16)), batch_size=8, shuffle=True)
    net, opt, loader = accelerator.prepare(net, opt, loader)
    step = 0
    for epoch in range(10):
        for (x,) in loader:
            loss = net(x).pow(2).mean()
            accelerator.backward(loss)
            opt.step()
            opt.zero_grad()
            step += 1
        try:
            start = time.time()
            if accelerator.is_main_process:
                save_models(accelerator, net, "ckpt", step)
                accelerator.save_state(f"ckpt/state-{step}")
            print(f"saved in {time.time() - start:.1f}s")
        except Exception as e:
            print(f"Error when saving model in step {step}:", e)
        accelerator.wait_for_everyone()
    accelerator.end_training()


if __name__ == "__main__":
    main()
