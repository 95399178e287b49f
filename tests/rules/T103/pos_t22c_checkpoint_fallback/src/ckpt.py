# stagec fixture: t22c pos_t22c_checkpoint_fallback (checkpoint helper)
# context: const.yaml entrypoint "python3 -m determined.launch.torch_distributed python3 main.py",
#          resources.slots_per_trial: 8
# runtime: torch.distributed, the model wrapped in DDP (src/train.py)
# expect:
#   T103 at 22:5 the handler swallows any exception while reading the checkpoint and falls back to
#        `epoch = 0`; train() loops `range(start_epoch, epochs)` over it around the DDP backward,
#        so a rank that cannot read the file runs more epochs than the 7 others and the job hangs
#        in the gradient all-reduce of its extra steps.
# ----
import logging

import torch


def resume(path, model, opt):
    try:
        state = torch.load(path, map_location="cpu")
        model.module.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        epoch = state["epoch"]
    except Exception as e:
        logging.info("could not resume from %s: %s", path, e)
        epoch = 0
    return model, opt, epoch
