# stagec fixture: s19 neg_save_state_three_calls_down_on_every_process (issue 22, class 2; the twin
#                 of pos_s19_save_state_three_calls_down: every process calls the save helper,
#                 and only the model file's write is left to the main process inside it)
# named: on the command line (an accelerate fine-tuning script and its library)
# runtime: multi-rank (Accelerator)
# expect: nothing
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
