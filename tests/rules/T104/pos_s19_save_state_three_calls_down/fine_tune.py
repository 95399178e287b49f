# stagec fixture: s19 pos_save_state_three_calls_down (issue 22, class 2: only the main process
#                 calls the stepwise save helper, which reaches `accelerator.save_state` three
#                 calls down — a collective under DeepSpeed or FSDP, which the other ranks never
#                 join)
# named: on the command line (an accelerate fine-tuning script and its library)
# runtime: multi-rank (Accelerator)
# expect:
#   T104 at 36:25 `train_util.save_model_on_epoch_end_or_stepwise( ar…` runs `accelerator.save_state(state_dir)` …
# ----
import argparse

import torch
from accelerate import Accelerator

from library import train_util


def train(args):
    accelerator = Accelerator()
    unet = torch.nn.Linear(8, 8)
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    unet, optimizer = accelerator.prepare(unet, optimizer)
    global_step = 0
    for epoch in range(args.epochs):
        for step in range(args.steps):
            with accelerator.accumulate(unet):
                loss = unet(torch.randn(4, 8, device=accelerator.device)).pow(2).mean()
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                global_step += 1
                if args.save_every_n_steps is not None and global_step % args.save_every_n_steps == 0:
                    accelerator.wait_for_everyone()
                    if accelerator.is_main_process:
                        train_util.save_model_on_epoch_end_or_stepwise(
                            args, False, accelerator, epoch + 1, global_step, unet
                        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--save_every_n_steps", type=int, default=None)
    parser.add_argument("--save_state", action="store_true")
    parser.add_argument("--output_dir", default="out")
    train(parser.parse_args())
