# stagec fixture: pos_s29_engine_backward_skipped_on_nan_item (issue 22, class 6; a GAN trainer
#   on DeepSpeed engines: each engine comes back from a loader function the trainer was given,
#   so only its name says what it is; the NaN test reads the flag out with `.item()`)
# named: on the command line (a deepspeed-launched script, no config)
# runtime: multi-rank (deepspeed.init_distributed)
# expect:
#   T103 at 37:17 `loss_g` is this rank's own loss: the rank whose batch overflows `continue`s past `engine_g.backward(loss_g)` …
#   T103 at 44:17 `loss_d` is this rank's own loss: … `engine_d.backward(loss_d)` …
# ----
import logging
from dataclasses import dataclass
from typing import Callable

import deepspeed
import torch

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
                    logger.error("generator loss is NaN, skipping step")
                    continue
                engine_g.backward(loss_g)
                engine_g.step()

                loss_d = self.feed_d(engine_d, batch, fake.detach())
                if torch.isnan(loss_d).any().item():
                    logger.error("discriminator loss is NaN, skipping step")
                    continue
                engine_d.backward(loss_d)
                engine_d.step()
