# stagec fixture: neg_s29_engine_nan_item_stops_or_agreed (look-alike of
#   pos_s29_engine_backward_skipped_on_nan_item)
# named: on the command line (a deepspeed-launched script, no config)
# runtime: multi-rank (deepspeed.init_distributed)
# expect: nothing:
#   - a NaN generator loss stops the job (`raise`), it does not skip;
#   - the discriminator's loss is all-reduced before the test, so every rank skips alike;
#   - a NaN in what the step logged (`stats_engine` is no engine name's word) skips only logging
# ----
import logging
from dataclasses import dataclass
from typing import Callable

import deepspeed
import torch
import torch.distributed as dist

logger = logging.getLogger(__name__)


@dataclass
class TrainLoop:
    load_g: Callable
    load_d: Callable
    feed_g: Callable
    feed_d: Callable

    def run(self, loader, max_steps):
        deepspeed.init_distributed()
        engine_g = self.load_g()
        engine_d = self.load_d()
        step = 0
        while step < max_steps:
            for batch in loader:
                step += 1
                fake, losses = self.feed_g(engine_g, batch)
                loss_g = sum(losses.values())
                if loss_g.isnan().item():
                    raise RuntimeError(f"generator loss is NaN at step {step}")
                engine_g.backward(loss_g)
                engine_g.step()

                loss_d = self.feed_d(engine_d, batch, fake.detach())
                dist.all_reduce(loss_d)
                if torch.isnan(loss_d).any().item():
                    logger.error("discriminator loss is NaN on every rank, skipping step")
                    continue
                engine_d.backward(loss_d)
                engine_d.step()
                if loss_d.isnan().item():
                    continue
                logger.info("step %d: %s", step, loss_d.item())
