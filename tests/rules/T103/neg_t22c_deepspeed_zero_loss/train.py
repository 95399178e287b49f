# stagec fixture: t22c neg_t22c_deepspeed_zero_loss
# context: const.yaml entrypoint "python3 -m determined.launch.deepspeed python3 train.py",
#          resources.slots_per_trial: 4
# runtime: DeepSpeed (one process per GPU), the model in a DeepSpeed engine
# expect: none
#   - The loss of a bad batch is replaced by a zero loss built from the logits (`* 0.0`) instead
#     of skipping: every rank still runs engine.backward() and engine.step().
#   - The metrics upload on rank 0 is tried and given up quietly: what it skips holds no
#     collective.
# ----
import argparse

import deepspeed
import torch
import wandb
from torch import nn


def masked_loss(logits, ids):
    mask = ids != 0
    if not mask.any():
        raise ValueError("empty batch")
    return nn.functional.cross_entropy(logits[mask], ids[mask])


def train(args):
    model = nn.Sequential(nn.Embedding(32000, 512), nn.Linear(512, 32000))
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    for step in range(args.steps):
        ids = torch.randint(0, 32000, (8, 513), device=engine.device)
        logits = engine(ids[:, :-1])
        try:
            loss = masked_loss(logits, ids[:, 1:])
        except Exception as e:
            print(f"step {step}: zero loss ({e})")
            loss = logits.sum() * 0.0
        engine.backward(loss)
        engine.step()
        if engine.global_rank == 0 and step % 50 == 0:
            try:
                wandb.log({"loss": loss.item()}, step=step)
            except Exception:
                pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    train(parser.parse_args())
